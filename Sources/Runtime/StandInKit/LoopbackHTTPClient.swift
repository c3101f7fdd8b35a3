import Foundation
import StandInRuntime
import SystemKit

#if canImport(Glibc)
import Glibc
#endif

/// A minimal blocking HTTP/1.1 client for 127.0.0.1 only, with a hard bound on every step
/// (connect, send, receive) and on the response size. The stand-ins talk to the settlement
/// server through it; a stopped or dead server turns into an error within `timeout`.
///
/// Connections are kept alive (HTTP/1.1's default, as URLSession does): a server answered over a
/// connection it already accepted costs it ~155 µs of CPU instead of ~405 µs with a connection per
/// request (Hummingbird, measured with a Python client on this machine), and a stand-in polls every
/// few device seconds all day. A kept connection is used again only while the server still holds
/// it open (`IdleConnections.isOpen`: nothing to read, no hangup) and never after a response that
/// ends with the connection; a request is never sent twice.
public enum LoopbackHTTPClient {
    public struct Response: Sendable {
        public var status: Int
        public var body: Data
        /// The connection may carry the next request: HTTP/1.1, no `Connection: close`, the body
        /// framed by its length or chunks, and nothing after it.
        var connectionReusable = false
    }

    /// Idle kept-alive connections, at most one per port (a restarted server binds a new port:
    /// the oldest port's connection is closed past `maxPorts`).
    final class IdleConnections: @unchecked Sendable {
        private let lock = NSLock()
        private var idle: [(port: UInt16, fd: Int32)] = []
        static let maxPorts = 8

        /// An idle connection to `port` the server still holds open, or nil.
        func take(port: UInt16) -> Int32? {
            lock.lock()
            defer { lock.unlock() }
            guard let i = idle.firstIndex(where: { $0.port == port }) else { return nil }
            let fd = idle.remove(at: i).fd
            if Self.isOpen(fd) { return fd }
            close(fd)
            return nil
        }

        func put(_ fd: Int32, port: UInt16) {
            lock.lock()
            defer { lock.unlock() }
            if let i = idle.firstIndex(where: { $0.port == port }) { close(idle.remove(at: i).fd) }
            idle.append((port, fd))
            while idle.count > Self.maxPorts { close(idle.removeFirst().fd) }
        }

        /// True while the peer has neither closed the connection nor sent anything unasked (a
        /// server that exited closed it: its FIN is readable at once, and the request goes to a
        /// fresh connection instead).
        static func isOpen(_ fd: Int32) -> Bool {
            var p = pollfd(fd: fd, events: Int16(POLLIN) | pollReadHangUp, revents: 0)
            return poll(&p, 1, 0) == 0
        }

        /// POLLRDHUP (Linux; Glibc's module does not export it: <poll.h> has it under _GNU_SOURCE).
        static let pollReadHangUp: Int16 = 0x2000

        var count: Int {
            lock.lock()
            defer { lock.unlock() }
            return idle.count
        }
    }

    static let idleConnections = IdleConnections()

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public static let maxResponseBytes = 1 << 20

    /// Sends `call` to the port published in `portFile` (re-read on every call: a restarted server
    /// binds a new port). Never throws: every failure is a transport error.
    public static func perform(_ call: HTTPCall, portFile: String, timeout: Duration, giveUp: () -> Bool = { false }) -> HTTPReply {
        // A server the harness runs inside itself, still published in `portFile`: one `stat`.
        if let inProcess = InProcessStandIns.server(portFile: portFile) { return inProcess(call) }
        guard let text = try? String(contentsOfFile: portFile, encoding: .utf8),
            let port = UInt16(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return .transportError("\(call.service): no port published in \(portFile)") }
        // Or published under a port number the registry answers for (read from the file).
        if let inProcess = InProcessStandIns.server(port: port) { return inProcess(call) }
        do {
            let r = try request(method: call.method, port: port, path: call.path, json: call.body, timeout: timeout, giveUp: giveUp)
            return .response(status: r.status, body: r.body)
        } catch {
            return .transportError("\(call.service) \(call.method) \(call.path): \(error)")
        }
    }

    /// Ends the message of a request abandoned through `giveUp`.
    public static let gaveUpMessage = "gave up at its device-time deadline"

    /// How often a wait looks at `giveUp` (a device-time deadline under stepped time).
    static let giveUpSliceMillis: Int32 = 20

    /// `timeout` bounds the whole exchange in wall time; `giveUp` ends it early when it turns true.
    public static func request(
        method: String, port: UInt16, path: String, json: Data?, timeout: Duration, giveUp: () -> Bool = { false }
    ) throws -> Response {
        let pooled = idleConnections.take(port: port)
        let fd = pooled ?? socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var reusable = false
        defer { if reusable { idleConnections.put(fd, port: port) } else { close(fd) } }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        func msLeft() -> Int32 {
            let left = deadline - ContinuousClock.now
            return Int32(max(0, min(60_000, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
        }
        func wait(_ events: Int32, _ what: String) throws {
            while true {
                if giveUp() { throw Failure(description: "\(what): \(gaveUpMessage)") }
                let left = msLeft()
                guard left > 0 else { throw Failure(description: "\(what): timed out") }
                var p = pollfd(fd: fd, events: Int16(events), revents: 0)
                let r = poll(&p, 1, min(left, giveUpSliceMillis))
                if r == 1 { return }
                if r < 0 && errno != EINTR { throw Failure(description: "\(what): \(String(cString: strerror(errno)))") }
            }
        }
        if pooled == nil { try connect(fd, port: port, wait: wait) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        if let json { head += "Content-Type: application/json\r\nContent-Length: \(json.count)\r\n" } else { head += "Content-Length: 0\r\n" }
        head += "\r\n"
        var out = Data(head.utf8)
        if let json { out.append(json) }
        var sent = 0
        while sent < out.count {
            let n = out.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n > 0 { sent += n; continue }
            if n < 0 && errno != EAGAIN && errno != EINTR { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            try wait(POLLOUT, "send")
        }
        var buf = Data()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if let r = try parse(buf) {
                reusable = r.connectionReusable
                return r
            }
            try wait(POLLIN, "receive")
            let n = recv(fd, &chunk, chunk.count, 0)
            if n == 0 {
                if let r = try parse(buf, eof: true) { return r }
                throw Failure(description: "connection closed before a full response")
            }
            if n < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                throw Failure(description: "receive: \(String(cString: strerror(errno)))")
            }
            buf.append(contentsOf: chunk[0..<n])
            if buf.count > maxResponseBytes { throw Failure(description: "response larger than \(maxResponseBytes) bytes") }
        }
    }

    /// Makes the new socket `fd` close-on-exec and non-blocking and connects it to
    /// 127.0.0.1:`port` within the request's bound.
    static func connect(_ fd: Int32, port: UInt16, wait: (Int32, String) throws -> Void) throws {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if rc != 0 {
            guard errno == EINPROGRESS else { throw Failure(description: "connect 127.0.0.1:\(port): \(String(cString: strerror(errno)))") }
            try wait(POLLOUT, "connect 127.0.0.1:\(port)")
            var err: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
            guard err == 0 else { throw Failure(description: "connect 127.0.0.1:\(port): \(String(cString: strerror(err)))") }
        }
    }

    /// ASCII-lowercased, without leading or trailing spaces and tabs.
    static func lowercasedTrimmed(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var s = bytes[...]
        while let f = s.first, f == 0x20 || f == 0x09 { s = s.dropFirst() }
        while let l = s.last, l == 0x20 || l == 0x09 { s = s.dropLast() }
        return s.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }

    /// A complete response in `buf`, or nil if more bytes are needed.
    static func parse(_ buf: Data, eof: Bool = false) throws -> Response? {
        guard let sep = buf.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        // The head as bytes, not Strings: split, trimmed and lowercased through Foundation it was
        // ~5 % of a virtual-time step's CPU (a host polls its server at most steps).
        let head = [UInt8](buf[..<sep.lowerBound])
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = 0
        var i = 0
        while i + 1 < head.count {
            if head[i] == 0x0D && head[i + 1] == 0x0A {
                if i > lineStart { lines.append(head[lineStart..<i]) }
                i += 2
                lineStart = i
            } else {
                i += 1
            }
        }
        if lineStart < head.count { lines.append(head[lineStart...]) }
        guard let statusLine = lines.first, statusLine.starts(with: "HTTP/1.".utf8),
            let code = statusLine.split(separator: 0x20).dropFirst().first, let status = Int(String(decoding: code, as: UTF8.self))
        else {
            throw Failure(description: "malformed status line")
        }
        var length: Int?
        var chunked = false
        var closes = !statusLine.starts(with: "HTTP/1.1".utf8)
        for l in lines.dropFirst() {
            // `name: value`; optional whitespace (SP, HTAB) around the value; names and the
            // tokens looked for are case-insensitive.
            guard let colon = l.firstIndex(of: UInt8(ascii: ":")), colon > l.startIndex, colon + 1 < l.endIndex else { continue }
            let name = Self.lowercasedTrimmed(l[..<colon])
            let value = Self.lowercasedTrimmed(l[(colon + 1)...])
            if name.elementsEqual("content-length".utf8) { length = Int(String(decoding: value, as: UTF8.self)) }
            if name.elementsEqual("transfer-encoding".utf8) && value.contains("chunked".utf8) { chunked = true }
            if name.elementsEqual("connection".utf8) && value.contains("close".utf8) { closes = true }
        }
        let body = buf[sep.upperBound...]
        if chunked {
            // Decode once the terminating chunk has arrived.
            var out = Data()
            var rest = Data(body)
            while true {
                guard let crlf = rest.range(of: Data("\r\n".utf8)) else { return nil }
                guard let size = Int(String(decoding: rest[..<crlf.lowerBound], as: UTF8.self).split(separator: ";").first ?? "", radix: 16) else {
                    throw Failure(description: "malformed chunk size")
                }
                let start = crlf.upperBound
                if size == 0 {
                    // The last chunk, an empty trailer, and nothing after it: the connection is clean.
                    let clean = rest[start...].elementsEqual(Data("\r\n".utf8))
                    return Response(status: status, body: out, connectionReusable: !closes && clean)
                }
                guard rest.count >= (start - rest.startIndex) + size + 2 else { return nil }
                out.append(rest[start..<(start + size)])
                rest = Data(rest[(start + size + 2)...])
            }
        }
        if let length {
            guard body.count >= length else { return nil }
            return Response(status: status, body: Data(body.prefix(length)), connectionReusable: !closes && body.count == length)
        }
        return eof ? Response(status: status, body: Data(body)) : nil
    }
}
