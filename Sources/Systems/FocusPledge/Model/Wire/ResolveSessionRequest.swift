import Foundation

/// The body of the seed's `resolveSession` callable (`POST /resolveSession`): what the host sends,
/// what the server decodes, and what the ledger settles from — one type for all three.
///
/// Decoding is lenient where the seed's Dart client is: `nativeEvidence` values may be strings,
/// numbers, booleans or null (`{'timestamp': timestamp, 'appBundleId': appBundleId}`); scalars are
/// kept as their JSON text and nulls are left out. `ifActive` is the hardened client's addition and
/// defaults to false (the seed's literal function).
public struct ResolveSessionRequest: Sendable, Equatable, Codable {
    public var sessionId: String
    public var resolution: Resolution
    public var idempotencyKey: String
    public var reason: String
    public var nativeEvidence: [String: String]?
    /// true = the server must refuse (409 `alreadyResolved`) when the session is no longer active.
    public var ifActive: Bool

    public init(
        sessionId: String, resolution: Resolution, idempotencyKey: String, reason: String,
        nativeEvidence: [String: String]? = nil, ifActive: Bool = false
    ) {
        self.sessionId = sessionId
        self.resolution = resolution
        self.idempotencyKey = idempotencyKey
        self.reason = reason
        self.nativeEvidence = nativeEvidence
        self.ifActive = ifActive
    }

    enum CodingKeys: String, CodingKey {
        case sessionId, resolution, idempotencyKey, reason, nativeEvidence, ifActive
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        sessionId = try c.decode(String.self, forKey: .sessionId)
        let text = try c.decode(String.self, forKey: .resolution)
        guard let resolution = Resolution(rawValue: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .resolution, in: c,
                debugDescription: "resolution must be \"SUCCESS\" or \"FAILURE\", got \"\(text.prefix(32))\"")
        }
        self.resolution = resolution
        idempotencyKey = try c.decode(String.self, forKey: .idempotencyKey)
        reason = try c.decode(String.self, forKey: .reason)
        nativeEvidence = try c.decodeIfPresent([String: EvidenceValue].self, forKey: .nativeEvidence)?
            .compactMapValues(\.text)
        ifActive = try c.decodeIfPresent(Bool.self, forKey: .ifActive) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(sessionId, forKey: .sessionId)
        try c.encode(resolution, forKey: .resolution)
        try c.encode(idempotencyKey, forKey: .idempotencyKey)
        try c.encode(reason, forKey: .reason)
        try c.encodeIfPresent(nativeEvidence, forKey: .nativeEvidence)
        try c.encode(ifActive, forKey: .ifActive)
    }

    /// One scalar JSON value of `nativeEvidence`.
    struct EvidenceValue: Decodable {
        var text: String?

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { text = nil; return }
            if let v = try? c.decode(String.self) { text = v; return }
            if let v = try? c.decode(Bool.self) { text = v ? "true" : "false"; return }
            if let v = try? c.decode(Int64.self) { text = String(v); return }
            if let v = try? c.decode(Double.self) { text = String(v); return }
            throw DecodingError.dataCorruptedError(
                in: c, debugDescription: "nativeEvidence values must be strings, numbers, booleans or null")
        }
    }
}
