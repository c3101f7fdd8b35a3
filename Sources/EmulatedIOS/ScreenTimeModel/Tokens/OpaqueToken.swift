import Foundation

/// What an opaque Screen Time token stands for. On iOS a token is an encrypted blob only the OS
/// can map back to an app, a category or a web domain; here it is base64 of `<kind>:<identifier>`
/// (`app:com.social.feed`, `category:social`, `web:example.com`). App code gets no API to open it
/// (ManagedSettings' `Token` has none); the harness, playing the OS, does (EMULATED-IOS.md §7.1).
public enum TokenKind: String, Sendable, Codable, CaseIterable {
    case application = "app"
    case category
    case webDomain = "web"
}

public enum OpaqueToken {
    /// An identifier (bundle id, category id, domain) longer than this is refused: tokens travel
    /// in every record.
    public static let maxIdentifierBytes = 1024

    public struct Malformed: Error, CustomStringConvertible, Equatable, Sendable {
        public let token: String
        public let reason: String
        public var description: String { "malformed Screen Time token \(String(reflecting: String(token.prefix(80)))): \(reason)" }
    }

    /// The token for `identifier` of `kind`.
    public static func encode(_ kind: TokenKind, _ identifier: String) -> String {
        Data("\(kind.rawValue):\(identifier)".utf8).base64EncodedString()
    }

    /// The kind and identifier a token stands for (harness side: the OS reads its own tokens).
    public static func decode(_ token: String) throws -> (kind: TokenKind, identifier: String) {
        guard token.utf8.count <= (maxIdentifierBytes + 16) * 4 / 3 + 4, let data = Data(base64Encoded: token) else {
            throw Malformed(token: token, reason: "not base64")
        }
        guard let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":") else {
            throw Malformed(token: token, reason: "not <kind>:<identifier>")
        }
        guard let kind = TokenKind(rawValue: String(text[..<colon])) else {
            throw Malformed(token: token, reason: "unknown kind \(String(reflecting: String(text[..<colon])))")
        }
        let identifier = String(text[text.index(after: colon)...])
        guard !identifier.isEmpty, identifier.utf8.count <= maxIdentifierBytes else {
            throw Malformed(token: token, reason: "empty or over-long identifier")
        }
        return (kind, identifier)
    }

    /// The identifier if `token` is of `kind`, else nil.
    public static func identifier(_ token: String, of kind: TokenKind) -> String? {
        guard let d = try? decode(token), d.kind == kind else { return nil }
        return d.identifier
    }
}
