import Foundation

/// The environment a stand-in reads: the process's, or — for a stand-in the harness runs inside
/// its own process, a thread each (`InProcessStandIns`) — the one that thread was given. Every
/// read of the environment on a stand-in's path goes through here, so a stand-in sees the same
/// variables however it runs.
///
/// A thread the stand-in's own code starts (a seed's `Task {}`, a framework's detached thread)
/// has no environment of its own: it gets the one of the stand-in that holds the turn (only one
/// runs at a time, `setTurnHolder`), as a thread of a process gets its process's.
public enum StandInEnvironment {
    private static let key = "sth.stand-in.environment"

    /// What the stand-in holding the turn gave its thread (nil: none holds it).
    nonisolated(unsafe) private static var holder: (env: [String: String], wait: (@Sendable (String, UInt64) -> Void)?)?
    private static let holderLock = NSLock()

    /// The stand-in whose turn it is now lends its environment and wait to threads without their
    /// own (nil when its turn ends).
    public static func setTurnHolder(_ env: [String: String]?, wait: (@Sendable (String, UInt64) -> Void)?) {
        holderLock.lock()
        holder = env.map { ($0, wait) }
        holderLock.unlock()
    }

    private static var turnHolder: (env: [String: String], wait: (@Sendable (String, UInt64) -> Void)?)? {
        holderLock.lock()
        defer { holderLock.unlock() }
        return holder
    }

    /// The calling thread's environment if it was given one, else the turn holder's, else the process's.
    public static var current: [String: String] {
        (Thread.current.threadDictionary[key] as? [String: String]) ?? turnHolder?.env ?? ProcessInfo.processInfo.environment
    }

    /// True when the calling thread runs a stand-in inside the harness (its own, or the turn holder's).
    public static var isThreadOwn: Bool { Thread.current.threadDictionary[key] != nil || turnHolder != nil }

    /// Gives the calling thread its own environment (nil: the process's again).
    public static func setForThisThread(_ env: [String: String]?) { Thread.current.threadDictionary[key] = env }

    private static let waitKey = "sth.stand-in.wait"

    /// How a stand-in inside the harness waits for an answer of the OS (a permission prompt):
    /// it hands the harness its turn — it cannot answer while the stand-in holds it — until
    /// `notification` moves past `generation`. Nil for a process of its own (it blocks).
    public static var waitForPost: (@Sendable (_ notification: String, _ generation: UInt64) -> Void)? {
        (Thread.current.threadDictionary[waitKey] as? WaitHook)?.body ?? turnHolder?.wait
    }

    public static func setWaitForPost(_ body: (@Sendable (String, UInt64) -> Void)?) {
        Thread.current.threadDictionary[waitKey] = body.map(WaitHook.init)
    }

    private final class WaitHook {
        let body: @Sendable (String, UInt64) -> Void
        init(_ body: @escaping @Sendable (String, UInt64) -> Void) { self.body = body }
    }
}
