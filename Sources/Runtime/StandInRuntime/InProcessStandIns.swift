import AppGroup
import Foundation
import SystemKit

#if canImport(Glibc)
import Glibc
#endif

/// Stand-ins the harness can run inside its own process, a thread each, instead of as a child
/// process: the role's own command, unchanged, with its environment, its crash points and its
/// end kept to that thread (`harness run --in-process`). A pack's executable registers its entry
/// here (`register`); the harness looks roles up by executable name.
///
/// What differs from a process, and how it is kept the same: the environment is the thread's
/// (`environment`), not the harness's; crash points count and log per stand-in
/// (`CrashPoints.State`); `exit` unwinds the command (`InProcessExit`) instead of ending the
/// process; a failpoint's `kill` ends the thread where it is, after releasing its flocks as the
/// kernel releases a killed process's; the stand-in's memory dies with it.
public enum InProcessStandIns {
    /// Runs the role's command with `arguments` (what the process would get after its name). It
    /// ends by returning (exit 0) or throwing `InProcessExit`; any other error is exit 1.
    public typealias Entry = @Sendable (_ arguments: [String]) throws -> Void

    nonisolated(unsafe) private static var entries: [String: Entry] = [:]
    private static let lock = NSLock()

    /// Registers the in-process entry of `executable` (the pack's stand-in binary's name).
    public static func register(executable: String, _ entry: @escaping Entry) {
        lock.lock()
        defer { lock.unlock() }
        entries[executable] = entry
    }

    public static func entry(for executable: String) -> Entry? {
        lock.lock()
        defer { lock.unlock() }
        return entries[executable]
    }

    /// The stand-in the calling thread runs, if it is one.
    public final class Current: @unchecked Sendable {
        public let environment: [String: String]
        /// Ends the stand-in where it stands (a stand-in that cannot go on, `StandInContext.fail`,
        /// or a long-lived one at its SIGTERM): records `code` and never returns.
        public let end: @Sendable (Int32) -> Never
        /// A long-lived stand-in (an app) hands control back to the harness with what it waits
        /// for, and returns when the harness runs it again (virtual time, PROTOCOL.md §9: what a
        /// process reports through the scheduler FIFO).
        public let idle: @Sendable (IdleReport) -> Void
        /// True once the harness sent this stand-in SIGTERM (it acts on it when it next looks).
        public let terminateRequested: @Sendable () -> Bool
        /// False once the stand-in has ended (killed while idle included).
        public let alive: @Sendable () -> Bool
        /// What an idle stand-in waits for changed while another one had the turn (a server's
        /// deadline after a request an app made): a process would send a new report.
        public let report: @Sendable (IdleReport) -> Void

        public init(
            environment: [String: String], end: @escaping @Sendable (Int32) -> Never,
            idle: @escaping @Sendable (IdleReport) -> Void = { _ in }, terminateRequested: @escaping @Sendable () -> Bool = { false },
            alive: @escaping @Sendable () -> Bool = { true }, report: @escaping @Sendable (IdleReport) -> Void = { _ in }
        ) {
            self.report = report
            self.environment = environment
            self.end = end
            self.idle = idle
            self.terminateRequested = terminateRequested
            self.alive = alive
        }
    }

    /// What an idle long-lived stand-in waits for: its earliest deadline (device unix seconds)
    /// and, per Darwin name it observes, the generation it has taken in. The harness runs it again
    /// when the deadline comes or a name moves past what it took in.
    public struct IdleReport: Sendable, Equatable {
        public var next: Double?
        public var consumed: [String: UInt64]
        /// It waits for an answer in the middle of its work (a prompt): it holds device time, as a
        /// process blocked in it does (it reports nothing until answered).
        public var holdsTime: Bool

        public init(next: Double?, consumed: [String: UInt64], holdsTime: Bool = false) {
            self.next = next
            self.consumed = consumed
            self.holdsTime = holdsTime
        }
    }

    // MARK: Servers inside the harness

    /// How an in-process server answers one request (what its HTTP stack would hand its routes).
    public typealias ServerHandler = @Sendable (HTTPCall) -> HTTPReply

    nonisolated(unsafe) private static var servers: [UInt16: (handler: ServerHandler, alive: @Sendable () -> Bool)] = [:]
    nonisolated(unsafe) private static var nextPort: UInt16 = 1

    /// Registers an in-process server: the number it publishes in its port file instead of a
    /// bound port (never a port anything listens on here: the registry answers for it). Apps in
    /// the harness that read it call `handler` while `alive` holds; anything else that connects
    /// to it is refused.
    public static func registerServer(alive: @escaping @Sendable () -> Bool, _ handler: @escaping ServerHandler) -> UInt16 {
        lock.lock()
        defer { lock.unlock() }
        // Ports 1... are privileged and this registry owns the numbers it hands out; a bounded table.
        servers = servers.filter { $0.value.alive() }
        var port = nextPort
        while servers[port] != nil { port = port == 1023 ? 1 : port + 1 }
        nextPort = port == 1023 ? 1 : port + 1
        servers[port] = (handler, alive)
        return port
    }

    nonisolated(unsafe) private static var published: [String: (inode: UInt64, port: UInt16)] = [:]

    /// The in-process server registered as `port` published it in `portFile` (its inode now).
    public static func published(portFile: String, port: UInt16) {
        var st = stat()
        guard stat(portFile, &st) == 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        if published.count >= 256 { published = [:] }
        published[portFile] = (UInt64(st.st_ino), port)
    }

    /// The handler behind `portFile` when it is still the file an in-process server published
    /// (same inode: the harness withdraws and restores a stopped server's file by renaming it)
    /// and that server is alive: one `stat` instead of reading the file. Nil: read it.
    public static func server(portFile: String) -> ServerHandler? {
        lock.lock()
        let entry = published[portFile]
        lock.unlock()
        guard let entry else { return nil }
        var st = stat()
        guard stat(portFile, &st) == 0, UInt64(st.st_ino) == entry.inode else { return nil }
        return server(port: entry.port)
    }

    /// The handler of the in-process server published as `port`, while it is alive.
    public static func server(port: UInt16) -> ServerHandler? {
        lock.lock()
        defer { lock.unlock() }
        guard let s = servers[port], s.alive() else { return nil }
        return s.handler
    }

    /// The calling thread's stand-in (nil in a stand-in process of its own, and in the harness).
    public static var current: Current? { StandInEnvironment.threadObject as? Current }

    public static func setCurrent(_ c: Current?) { StandInEnvironment.setThreadObject(c) }

    /// The environment a stand-in reads: its thread's when it runs in the harness, else the process's.
    public static var environment: [String: String] { current?.environment ?? ProcessInfo.processInfo.environment }

    /// A stand-in's `exit(code)`: in its own process, the process ends; in the harness, the
    /// command unwinds to its entry (`InProcessExit`).
    public static func exit(_ code: Int32) throws -> Never {
        if current != nil { throw InProcessExit(code: code) }
        Foundation.exit(code)
    }
}

/// An in-process stand-in's `exit(code)` on its way out of the command.
public struct InProcessExit: Error, Sendable {
    public let code: Int32
    public init(code: Int32) { self.code = code }
}
