import Foundation

/// A request a stand-in makes to one of its system's servers (`service` is the server role's
/// name, e.g. `settlement-server`). The live device sends it to `127.0.0.1:<port>`, the port read
/// from `<run-dir>/ports/<service>.port` on every call (a restarted server binds a new port);
/// tests route it to the server's pure service in memory.
public struct HTTPCall: Sendable, Equatable {
    public var service: String
    public var method: String
    /// Starts with `/`; percent-encoded where needed.
    public var path: String
    /// JSON body, or nil for none.
    public var body: Data?

    public init(service: String, method: String, path: String, body: Data? = nil) {
        self.service = service
        self.method = method
        self.path = path
        self.body = body
    }
}

/// How a call ended: an HTTP response, or no response at all (refused, reset, timed out, no port).
public enum HTTPReply: Sendable, Equatable {
    case response(status: Int, body: Data)
    case transportError(String)
}
