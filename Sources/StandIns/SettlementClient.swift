import FocusPledge
import Foundation

/// Carries the host's `HTTPRequest` effects to the settlement server and maps the answers to
/// `HTTPOutcome`. The server's port is re-read from its port file on every call: a restarted
/// server listens on a new ephemeral port.
public struct SettlementClient: Sendable {
    public let portFile: String
    public let timeout: Duration

    public init(portFile: String, timeout: Duration = .seconds(2)) {
        self.portFile = portFile
        self.timeout = timeout
    }

    func port() -> UInt16? {
        guard let s = try? String(contentsOfFile: portFile, encoding: .utf8) else { return nil }
        return UInt16(s.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func resolution(_ any: Any?) -> Resolution? {
        guard let s = any as? String else { return nil }
        return Resolution(rawValue: s)
    }

    public func perform(_ request: HTTPRequest) -> HTTPOutcome {
        guard let port = port() else { return .transportError("settlement server port file missing") }
        do {
            switch request {
            case .createSession(let sid, let minutes):
                let body = try JSONSerialization.data(withJSONObject: ["sessionId": sid, "durationMinutes": minutes])
                let r = try LoopbackHTTPClient.request(method: "POST", port: port, path: "/sessions", json: body, timeout: timeout)
                if r.status == 200 || r.status == 409 { return .accepted }
                return r.status == 404 ? .notFound : .transportError("createSession: HTTP \(r.status)")
            case .heartbeat(let sid):
                let path = "/sessions/\(sid.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? sid)/heartbeat"
                let r = try LoopbackHTTPClient.request(method: "POST", port: port, path: path, json: nil, timeout: timeout)
                if r.status == 404 { return .notFound }
                guard r.status == 200 else { return .transportError("heartbeat: HTTP \(r.status)") }
                let obj = (try? JSONSerialization.jsonObject(with: r.body)) as? [String: Any]
                if let res = Self.resolution(obj?["sessionStatus"]) { return .alreadyResolved(res) }
                return .accepted
            case .resolveSession(let req):
                let enc = JSONEncoder()
                let r = try LoopbackHTTPClient.request(method: "POST", port: port, path: "/resolveSession", json: try enc.encode(req), timeout: timeout)
                let obj = (try? JSONSerialization.jsonObject(with: r.body)) as? [String: Any]
                let res = Self.resolution(obj?["resolution"]) ?? req.resolution
                switch r.status {
                case 200: return (obj?["status"] as? String) == "duplicate" ? .duplicate(res) : .settled(res)
                case 409: return .alreadyResolved(res)
                case 404: return .notFound
                default: return .transportError("resolveSession: HTTP \(r.status)")
                }
            }
        } catch {
            return .transportError("\(error)")
        }
    }
}
