import Foundation
import SystemKit

/// A call the host makes to the settlement server. The machine sends `http` and decodes the
/// reply with `outcome(of:)`: the host's whole side of the wire is in this file, the server's in
/// `SettlementService`, and the bodies between them in `SettlementAPI` / `ResolveSessionRequest`.
public enum SettlementCall: Sendable, Equatable {
    /// Creates the server-side session (the seed presumes it exists; the session id is chosen by
    /// the client, so the call is idempotent).
    case createSession(sessionId: String, durationMinutes: Int)
    /// Reports that the host still watches the session (seed: "stale `native.lastCheckedAt`").
    case heartbeat(sessionId: String)
    /// Seed: `FirebaseFunctions.instance.httpsCallable('resolveSession')`.
    case resolveSession(ResolveSessionRequest)

    /// The server role the calls go to.
    public static let service = "settlement-server"

    public var http: HTTPCall {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        switch self {
        case .createSession(let sessionId, let durationMinutes):
            let body = try? encoder.encode(SettlementAPI.CreateSessionBody(sessionId: sessionId, durationMinutes: durationMinutes))
            return HTTPCall(service: Self.service, method: "POST", path: "/sessions", body: body)
        case .heartbeat(let sessionId):
            return HTTPCall(service: Self.service, method: "POST", path: "/sessions/\(Self.escape(sessionId))/heartbeat")
        case .resolveSession(let request):
            return HTTPCall(service: Self.service, method: "POST", path: "/resolveSession", body: try? encoder.encode(request))
        }
    }

    /// The call an `HTTPCall` carries, or nil for anything else (tests read requests back with it).
    public init?(_ call: HTTPCall) {
        guard call.service == Self.service, call.method == "POST" else { return nil }
        let decoder = JSONDecoder()
        switch call.path {
        case "/sessions":
            guard let body = call.body, let b = try? decoder.decode(SettlementAPI.CreateSessionBody.self, from: body) else { return nil }
            self = .createSession(sessionId: b.sessionId, durationMinutes: b.durationMinutes)
        case "/resolveSession":
            guard let body = call.body, let r = try? decoder.decode(ResolveSessionRequest.self, from: body) else { return nil }
            self = .resolveSession(r)
        default:
            let parts = call.path.split(separator: "/", omittingEmptySubsequences: true)
            guard parts.count == 3, parts[0] == "sessions", parts[2] == "heartbeat",
                let sessionId = String(parts[1]).removingPercentEncoding
            else { return nil }
            self = .heartbeat(sessionId: sessionId)
        }
    }

    /// What the host makes of the server's answer (status codes as `SettlementService` sends them).
    public func outcome(of reply: HTTPReply) -> HTTPOutcome {
        guard case .response(let status, let body) = reply else {
            if case .transportError(let message) = reply { return .transportError(message) }
            return .transportError("no reply")
        }
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        func resolution(_ key: String) -> Resolution? { (object?[key] as? String).flatMap(Resolution.init(rawValue:)) }
        switch self {
        case .createSession:
            if status == 200 || status == 409 { return .accepted }
            return status == 404 ? .notFound : .transportError("createSession: HTTP \(status)")
        case .heartbeat:
            if status == 404 { return .notFound }
            guard status == 200 else { return .transportError("heartbeat: HTTP \(status)") }
            // A settled session says so (sessionStatus SUCCESS/FAILURE); an active one says ACTIVE.
            if let settled = resolution("sessionStatus") { return .alreadyResolved(settled) }
            return .accepted
        case .resolveSession(let request):
            let settled = resolution("resolution") ?? request.resolution
            switch status {
            case 200: return (object?["status"] as? String) == "duplicate" ? .duplicate(settled) : .settled(settled)
            case 409: return .alreadyResolved(settled)
            case 404: return .notFound
            default: return .transportError("resolveSession: HTTP \(status)")
            }
        }
    }

    static func escape(_ s: String) -> String {
        // Unreserved characters (RFC 3986) are never escaped: most ids are only these, and building
        // the character set and percent-encoding through Foundation was ~1 % of a virtual-time day.
        if s.utf8.allSatisfy(isUnreserved) { return s }
        return s.addingPercentEncoding(withAllowedCharacters: pathSegmentAllowed) ?? s
    }

    static func isUnreserved(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2E || c == 0x5F || c == 0x7E
    }

    static let pathSegmentAllowed: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/")
        return allowed
    }()
}
