import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The environment a stand-in reads: the process's, or — for a stand-in the harness runs inside
/// its own process, a thread each (`InProcessStandIns`) — the one that thread was given. Every
/// read of the environment on a stand-in's path goes through here, so a stand-in sees the same
/// variables however it runs.
///
/// A thread the stand-in's own code starts (a seed's `Task {}`, a framework's detached thread)
/// has no environment of its own: it gets the one of the stand-in that holds the turn (only one
/// runs at a time, `setTurnHolder`), as a thread of a process gets its process's.
public enum StandInEnvironment {
    /// What a thread was given (a pthread key: this is read on every clock and device lookup).
    final class Slot {
        var env: [String: String]?
        var wait: (@Sendable (String, UInt64) -> Void)?
        /// Anything else a layer above keeps per thread (`InProcessStandIns.current`).
        var other: AnyObject?
    }

    private static let slotKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { p in if let p { Unmanaged<Slot>.fromOpaque(p).release() } }
        return key
    }()

    /// The calling thread's slot (made on first use when `create`).
    static func slot(create: Bool) -> Slot? {
        if let p = pthread_getspecific(slotKey) { return Unmanaged<Slot>.fromOpaque(p).takeUnretainedValue() }
        guard create else { return nil }
        let s = Slot()
        pthread_setspecific(slotKey, Unmanaged.passRetained(s).toOpaque())
        return s
    }

    /// What the stand-in holding the turn gave its thread (nil: none holds it).
    nonisolated(unsafe) private static var holder: (env: [String: String], wait: (@Sendable (String, UInt64) -> Void)?)?
    nonisolated(unsafe) private static var holding = false
    private static let holderLock = NSLock()

    /// The stand-in whose turn it is now lends its environment and wait to threads without their
    /// own (nil when its turn ends).
    public static func setTurnHolder(_ env: [String: String]?, wait: (@Sendable (String, UInt64) -> Void)?) {
        holderLock.lock()
        holder = env.map { ($0, wait) }
        holding = holder != nil
        holderLock.unlock()
    }

    private static var turnHolder: (env: [String: String], wait: (@Sendable (String, UInt64) -> Void)?)? {
        guard holding else { return nil }
        holderLock.lock()
        defer { holderLock.unlock() }
        return holder
    }

    /// The calling thread's environment if it was given one, else the turn holder's, else the process's.
    public static var current: [String: String] {
        slot(create: false)?.env ?? turnHolder?.env ?? ProcessInfo.processInfo.environment
    }

    /// True when the calling thread runs a stand-in inside the harness (its own, or the turn holder's).
    public static var isThreadOwn: Bool { slot(create: false)?.env != nil || turnHolder != nil }

    /// Gives the calling thread its own environment (nil: the process's again).
    public static func setForThisThread(_ env: [String: String]?) { slot(create: true)?.env = env }

    /// How a stand-in inside the harness waits for an answer of the OS (a permission prompt):
    /// it hands the harness its turn — it cannot answer while the stand-in holds it — until
    /// `notification` moves past `generation`. Nil for a process of its own (it blocks).
    public static var waitForPost: (@Sendable (_ notification: String, _ generation: UInt64) -> Void)? {
        slot(create: false)?.wait ?? turnHolder?.wait
    }

    public static func setWaitForPost(_ body: (@Sendable (String, UInt64) -> Void)?) { slot(create: true)?.wait = body }

    /// A layer above keeps one object per thread here (nil: none).
    public static var threadObject: AnyObject? { slot(create: false)?.other }

    public static func setThreadObject(_ o: AnyObject?) { slot(create: true)?.other = o }
}
