import Foundation
@testable import StandInKit
import SystemKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The stand-ins' HTTP client (`LoopbackHTTPClient`): a response is read whole however the
/// server's bytes arrive, and every exchange ends within its bound — a server that accepts and
/// never answers, or a port nobody listens on, is an error, never a hang.
@Suite(.timeLimit(.minutes(1))) struct LoopbackHTTPClientTests {
    typealias Client = LoopbackHTTPClient

    static func bytes(_ s: String) -> Data { Data(s.utf8) }

    @Test func aResponseIsCompleteOnlyWithItsWholeBody() throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n"
        #expect(try Client.parse(Self.bytes("HTTP/1.1 200 OK\r\nContent-Le")) == nil, "a head cut short")
        #expect(try Client.parse(Self.bytes(head + "{\"ok\":")) == nil, "a body shorter than its Content-Length")
        let whole = try #require(try Client.parse(Self.bytes(head + "{\"ok\":true}")))
        #expect(whole.status == 200 && whole.body == Self.bytes("{\"ok\":true}"))
        // Bytes after the announced length are not part of the body.
        #expect(try Client.parse(Self.bytes(head + "{\"ok\":true}junk"))?.body == Self.bytes("{\"ok\":true}"))
        // Without a length the body ends with the connection.
        let open = "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\nbusy"
        #expect(try Client.parse(Self.bytes(open)) == nil)
        let closed = try #require(try Client.parse(Self.bytes(open), eof: true))
        #expect(closed.status == 503 && closed.body == Self.bytes("busy"))
    }

    @Test func aChunkedBodyIsDecodedOnceItsLastChunkArrived() throws {
        let head = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
        #expect(try Client.parse(Self.bytes(head + "4\r\n{\"a\"\r\n")) == nil, "the terminating chunk has not come")
        let r = try #require(try Client.parse(Self.bytes(head + "4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n")))
        #expect(r.body == Self.bytes("{\"a\":1}"))
    }

    /// Header names and the tokens looked for are case-insensitive; a value's optional whitespace
    /// (spaces, tabs) is not part of it; a line without a name or a value is skipped.
    @Test func headersAreReadAsHTTPWritesThem() throws {
        let r = try #require(try Client.parse(Self.bytes(
            "HTTP/1.1  201 Created\r\nX-Empty:\r\n:odd\r\ncONTENT-lENGTH:\t 2 \t\r\nConnection: Keep-Alive, CLOSE\r\n\r\nok")))
        #expect(r.status == 201 && r.body == Self.bytes("ok"))
        #expect(!r.connectionReusable, "Connection: ... close")
        let kept = try #require(try Client.parse(Self.bytes("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")))
        #expect(kept.connectionReusable)
        let old = try #require(try Client.parse(Self.bytes("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")))
        #expect(!old.connectionReusable, "HTTP/1.0 closes unless told otherwise")
        let chunked = try #require(try Client.parse(Self.bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding:  gzip, CHUNKED\r\n\r\n1\r\nx\r\n0\r\n\r\n")))
        #expect(chunked.body == Self.bytes("x"))
    }

    @Test func aMalformedResponseIsAnError() {
        #expect(throws: Client.Failure.self) { try Client.parse(Self.bytes("SSH-2.0-OpenSSH\r\n\r\n")) }
        #expect(throws: Client.Failure.self) { try Client.parse(Self.bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")) }
    }

    /// A socket listening on an ephemeral port of 127.0.0.1, and the port.
    static func listening() throws -> (fd: Int32, port: UInt16) {
        let sock = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(sock, $0, len) == 0 && listen(sock, 8) == 0 && getsockname(sock, $0, &len) == 0
            }
        }
        guard sock >= 0, ready else { throw Client.Failure(description: "test server: errno \(errno)") }
        return (sock, UInt16(bigEndian: addr.sin_port))
    }

    /// A server on 127.0.0.1 that answers each connection with `answer` (nil: reads the request
    /// and then says nothing until the client gives up). Returns its port.
    final class OneShotServer: @unchecked Sendable {
        let fd: Int32
        let port: UInt16
        private var held: [Int32] = []
        private let lock = NSLock()

        init(answer: [String]?, pauseMillis: UInt32 = 30) throws {
            (fd, port) = try LoopbackHTTPClientTests.listening()
            let listener = fd
            Thread { [self] in
                let c = accept(listener, nil, nil)
                guard c >= 0 else { return }
                var buf = [UInt8](repeating: 0, count: 4096)
                _ = recv(c, &buf, buf.count, 0)
                guard let answer else {
                    lock.lock()
                    held.append(c)
                    lock.unlock()
                    return
                }
                // The answer in pieces, with pauses: the client must wait for the rest.
                for piece in answer {
                    _ = piece.withCString { send(c, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                    usleep(pauseMillis * 1000)
                }
                close(c)
            }.start()
        }

        deinit {
            close(fd)
            lock.lock()
            held.forEach { close($0) }
            lock.unlock()
        }
    }

    @Test func aResponseSentInPiecesIsReadWhole() throws {
        let body = "{\"status\":\"SUCCESS\",\"sessionId\":\"s-1\"}"
        let server = try OneShotServer(answer: [
            "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n", "\r\n", String(body.prefix(10)), String(body.dropFirst(10)),
        ])
        let r = try Client.request(method: "POST", port: server.port, path: "/resolveSession", json: Self.bytes("{}"), timeout: .seconds(5))
        #expect(r.status == 200)
        #expect(r.body == Self.bytes(body))
    }

    /// `body` under the tests' watchdog (`bounded`): nil when it did not return in time.
    static func bounded(_ seconds: Double, _ body: @escaping @Sendable () -> String) -> String? {
        try? FrameworksTests.bounded(seconds, body)
    }

    @Test func aServerThatNeverAnswersIsAnErrorWithinTheTimeout() throws {
        let server = try OneShotServer(answer: nil)
        let port = server.port
        let t0 = ContinuousClock.now
        let outcome = Self.bounded(5) { () -> String in
            do {
                _ = try Client.request(method: "GET", port: port, path: "/health", json: nil, timeout: .milliseconds(300))
                return "answered"
            } catch { return "\(error)" }
        }
        let took = ContinuousClock.now - t0
        #expect(outcome?.contains("timed out") == true, "\(outcome ?? "still waiting after 5 s")")
        #expect(took >= .milliseconds(250) && took < .seconds(3), "\(took)")
        // `giveUp` ends the wait sooner (a device-time deadline under stepped time).
        let again = try OneShotServer(answer: nil)
        let againPort = again.port
        let t1 = ContinuousClock.now
        let gaveUp = Self.bounded(5) { () -> String in
            do {
                _ = try Client.request(
                    method: "GET", port: againPort, path: "/health", json: nil, timeout: .seconds(30),
                    giveUp: { ContinuousClock.now - t1 > .milliseconds(100) })
                return "answered"
            } catch { return "\(error)" }
        }
        #expect(gaveUp?.contains(Client.gaveUpMessage) == true, "\(gaveUp ?? "still waiting after 5 s")")
        #expect(ContinuousClock.now - t1 < .seconds(3))
        withExtendedLifetime((server, again)) {}
    }

    @Test func aPortNobodyListensOnIsATransportErrorAtOnce() throws {
        // A port that was just bound and closed again, never listened on: nobody is there.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        close(fd)
        try #require(bound)
        let port = UInt16(bigEndian: addr.sin_port)
        let t0 = ContinuousClock.now
        let reply = Client.perform(HTTPCall(service: "settlement-server", method: "GET", path: "/health"), portFile: try Self.portFile(port), timeout: .seconds(5))
        guard case .transportError(let message) = reply else {
            Issue.record("expected a transport error, got \(reply)")
            return
        }
        #expect(message.contains("settlement-server GET /health"), "\(message)")
        #expect(ContinuousClock.now - t0 < .seconds(2))
        // No port published: said so, nothing is sent.
        guard case .transportError(let none) = Client.perform(
            HTTPCall(service: "settlement-server", method: "GET", path: "/health"), portFile: "/nonexistent/port", timeout: .seconds(1))
        else {
            Issue.record("expected a transport error without a port file")
            return
        }
        #expect(none.contains("no port published"), "\(none)")
    }

    /// A server on 127.0.0.1 that answers every request on every connection (HTTP/1.1 keep-alive),
    /// counting connections and requests; `closeAfterEach` answers with `Connection: close` and
    /// closes; `dropIdle()` closes every connection between requests, as a server that exited does.
    final class KeepAliveServer: @unchecked Sendable {
        let fd: Int32
        let port: UInt16
        let closeAfterEach: Bool
        private let lock = NSLock()
        private var open: [Int32] = []
        private(set) var connections = 0
        private(set) var requests = 0

        init(closeAfterEach: Bool = false) throws {
            self.closeAfterEach = closeAfterEach
            (fd, port) = try LoopbackHTTPClientTests.listening()
            let listener = fd
            Thread { [self] in
                while true {
                    let c = accept(listener, nil, nil)
                    guard c >= 0 else { return }
                    lock.lock()
                    connections += 1
                    open.append(c)
                    lock.unlock()
                    Thread { self.serve(c) }.start()
                }
            }.start()
        }

        private func serve(_ c: Int32) {
            var pending = [UInt8]()
            var buf = [UInt8](repeating: 0, count: 4096)
            while true {
                // One request: its head, then Content-Length bytes of body.
                while true {
                    if let end = pending.firstRange(of: Array("\r\n\r\n".utf8)) {
                        let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self).lowercased()
                        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                        if pending.count >= end.upperBound + length {
                            pending.removeFirst(end.upperBound + length)
                            break
                        }
                    }
                    let n = recv(c, &buf, buf.count, 0)
                    if n <= 0 { return }
                    pending += buf[0..<n]
                }
                lock.lock()
                requests += 1
                let number = requests
                lock.unlock()
                let body = "{\"request\":\(number)}"
                let reply = "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n" + (closeAfterEach ? "Connection: close\r\n" : "") + "\r\n" + body
                _ = reply.withCString { send(c, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                if closeAfterEach {
                    shutdown(c, Int32(SHUT_RDWR))
                    return
                }
            }
        }

        /// Closes every accepted connection (the client's idle one sees the FIN).
        func dropIdle() {
            lock.lock()
            open.forEach { shutdown($0, Int32(SHUT_RDWR)) }
            lock.unlock()
        }

        var counts: (connections: Int, requests: Int) {
            lock.lock()
            defer { lock.unlock() }
            return (connections, requests)
        }

        deinit {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
            lock.lock()
            open.forEach { close($0) }
            lock.unlock()
        }
    }

    @Test func aConnectionCarriesTheNextRequestWhileTheServerKeepsItOpen() throws {
        let server = try KeepAliveServer()
        for i in 1...3 {
            let r = try Client.request(method: "POST", port: server.port, path: "/sessions", json: Self.bytes("{}"), timeout: .seconds(5))
            #expect(r.status == 200 && r.body == Self.bytes("{\"request\":\(i)}"))
        }
        #expect(server.counts == (1, 3), "three requests, one connection: \(server.counts)")
        // The server closed it (it exited, or restarted): the next request goes on a fresh one,
        // without an error and without being sent twice.
        server.dropIdle()
        usleep(20_000)
        let r = try Client.request(method: "GET", port: server.port, path: "/health", json: nil, timeout: .seconds(5))
        #expect(r.body == Self.bytes("{\"request\":4}"))
        #expect(server.counts == (2, 4), "\(server.counts)")
    }

    @Test func aResponseThatEndsTheConnectionIsNotFollowedOnIt() throws {
        let server = try KeepAliveServer(closeAfterEach: true)
        for _ in 1...2 { _ = try Client.request(method: "GET", port: server.port, path: "/health", json: nil, timeout: .seconds(5)) }
        #expect(server.counts == (2, 2), "Connection: close — a connection per request: \(server.counts)")
        // Nor after a response with bytes past its end, or one whose length is the connection's.
        let framed = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n"
        #expect(try Client.parse(Self.bytes(framed + "{}"))?.connectionReusable == true)
        #expect(try Client.parse(Self.bytes(framed + "{}junk"))?.connectionReusable == false)
        #expect(try Client.parse(Self.bytes("HTTP/1.1 200 OK\r\n\r\n{}"), eof: true)?.connectionReusable == false)
        #expect(try Client.parse(Self.bytes("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}"))?.connectionReusable == false)
        #expect(try Client.parse(Self.bytes("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}"))?.connectionReusable == false)
        #expect(try Client.parse(Self.bytes("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"))?.connectionReusable == true)
    }

    @Test func idleConnectionsAreBoundedPerPortAndInAll() throws {
        let pool = Client.IdleConnections()
        var peers: [Int32] = []
        defer { peers.forEach { close($0) } }
        /// One end of a connected pair (the other end held open: the connection is "open").
        func connection() -> Int32 {
            var pair: [Int32] = [-1, -1]
            _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair)
            peers.append(pair[1])
            return pair[0]
        }
        pool.put(connection(), port: 1)
        pool.put(connection(), port: 1)  // replaces (and closes) the first
        #expect(pool.count == 1)
        let last = UInt16(Client.IdleConnections.maxPorts + 3)
        for p in 2...last { pool.put(connection(), port: p) }
        #expect(pool.count == Client.IdleConnections.maxPorts)
        #expect(pool.take(port: 1) == nil, "the oldest port's connection was closed past the bound")
        let kept = try #require(pool.take(port: last), "the newest is kept")
        close(kept)
        // A connection whose peer closed is not handed out.
        let dead = connection()
        close(peers.removeLast())
        pool.put(dead, port: 99)
        #expect(pool.take(port: 99) == nil)
    }

    static func portFile(_ port: UInt16) throws -> String {
        let path = NSTemporaryDirectory() + "/sth-port-\(getpid())-\(UUID().uuidString.prefix(8))"
        try "\(port)\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
