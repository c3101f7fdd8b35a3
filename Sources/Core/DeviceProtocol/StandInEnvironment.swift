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
    /// The role the harness started a process as (EMULATED-IOS.md §7.8): its trace's name, its sandbox,
    /// the writer `system/` records name.
    public static let processVariable = "SCREENTIME_PROCESS"

    /// What a thread was given (a pthread key: this is read on every clock and device lookup).
    final class Slot {
        var env: [String: String]?
        var wait: (@Sendable (String, UInt64) -> Void)?
        /// Anything else a layer above keeps per thread (`InProcessStandIns.current`).
        var other: AnyObject?
        /// The stand-in's incarnation (one per launch: what a process's own memory is).
        var incarnation: AnyObject?
        /// The pid the stand-in is known by (the harness gives it one no process can have).
        var pid: Int32?
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
    nonisolated(unsafe) private static var holder: (env: [String: String], wait: (@Sendable (String, UInt64) -> Void)?, incarnation: AnyObject?)?
    nonisolated(unsafe) private static var holderPid: Int32?
    nonisolated(unsafe) private static var holding = false
    private static let holderLock = NSLock()

    /// The stand-in whose turn it is now lends its environment and wait to threads without their
    /// own (nil when its turn ends).
    public static func setTurnHolder(_ env: [String: String]?, wait: (@Sendable (String, UInt64) -> Void)?, incarnation: AnyObject? = nil, pid: Int32? = nil) {
        holderLock.lock()
        holder = env.map { ($0, wait, incarnation) }
        holderPid = env == nil ? nil : pid
        holding = holder != nil
        holderLock.unlock()
    }

    private static var turnHolder: (env: [String: String], wait: (@Sendable (String, UInt64) -> Void)?, incarnation: AnyObject?)? {
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

    /// The in-process stand-in's incarnation the calling thread belongs to (its own, or the turn
    /// holder's); nil in a process of its own. What a process keeps once in its memory (a
    /// framework's `shared` instance) is kept once per incarnation inside the harness.
    public static var incarnation: ObjectIdentifier? {
        if let i = slot(create: false)?.incarnation { return ObjectIdentifier(i) }
        return turnHolder?.incarnation.map(ObjectIdentifier.init)
    }

    public static func setIncarnationForThisThread(_ i: AnyObject?) { slot(create: true)?.incarnation = i }

    /// One instance per in-process incarnation (`incarnation`), else nil: the caller keeps its
    /// process-wide one. Kept for the harness's life (a launch's worth of objects each).
    public static func perIncarnation<T: AnyObject>(_ make: () -> T) -> T? {
        perIncarnation(key: "\(T.self)", make)
    }

    /// `perIncarnation` for several instances of one type, told apart by `key` (a suite's name);
    /// `make` may fail (nil: nothing is kept, and nil is returned).
    public static func perIncarnation<T: AnyObject>(key: String, _ make: () -> T?) -> T? {
        guard let id = incarnation else { return nil }
        let key = "\(T.self)/\(key)#\(id.hashValue)"
        instancesLock.lock()
        let kept = instances[key]?.instance as? T
        instancesLock.unlock()
        if let kept { return kept }
        // Made outside the lock: making it may ask for another (a store reads its launch's hooks).
        guard let o = make() else { return nil }
        instancesLock.lock()
        defer { instancesLock.unlock() }
        // Made meanwhile by another thread of the launch: the first one is the launch's.
        if let first = instances[key]?.instance as? T { return first }
        // The incarnation is kept with it: its address never names a later one.
        instances[key] = (incarnationObject, o)
        return o
    }

    /// The incarnation object itself (kept alive with what was made for it): what `incarnation`
    /// names, for a caller that keeps it (so that its identity is never a later one's).
    public static var incarnationObject: AnyObject? { slot(create: false)?.incarnation ?? turnHolder?.incarnation }

    nonisolated(unsafe) private static var instances: [String: (incarnation: AnyObject?, instance: AnyObject)] = [:]
    private static let instancesLock = NSLock()

    /// The pid of the process asking: the stand-in's the harness gave it (its own thread's, or the
    /// turn holder's) inside the harness, else this process's — what records of who wrote carry.
    public static var processID: Int32 {
        if let p = slot(create: false)?.pid { return p }
        if holding {
            holderLock.lock()
            defer { holderLock.unlock() }
            if let p = holderPid { return p }
        }
        return getpid()
    }

    public static func setProcessIDForThisThread(_ pid: Int32?) { slot(create: true)?.pid = pid }

    /// A layer above keeps one object per thread here (nil: none).
    public static var threadObject: AnyObject? { slot(create: false)?.other }

    public static func setThreadObject(_ o: AnyObject?) { slot(create: true)?.other = o }
}

/// A process-wide value — a hook a stand-in sets once, before app code runs (where its trace
/// goes) — that inside the harness is each launch's own, as it would be in a process of its own:
/// stand-ins run as threads of the harness there, and one launch's setting must not become
/// another's (the host's log lines written to an extension's trace).
public final class PerLaunch<Value>: @unchecked Sendable {
    private final class Box { var value: Value; init(_ v: Value) { value = v } }
    private let initial: Value
    private var processValue: Value
    private let lock = NSLock()
    /// What tells this value apart from the others a launch keeps.
    private let key: String

    public init(_ initial: Value) {
        self.initial = initial
        processValue = initial
        key = "PerLaunch \(PerLaunchCount.next())"
    }

    /// The calling launch's value inside the harness (its own thread's or the turn holder's),
    /// else the process's.
    public var value: Value {
        get {
            if let box = launchBox { return box.value }
            lock.lock()
            defer { lock.unlock() }
            return processValue
        }
        set {
            if let box = launchBox {
                box.value = newValue
                return
            }
            lock.lock()
            processValue = newValue
            lock.unlock()
        }
    }

    private var launchBox: Box? {
        guard StandInEnvironment.incarnation != nil else { return nil }
        let initial = self.initial
        return StandInEnvironment.perIncarnation(key: key) { Box(initial) }
    }
}

/// How many `PerLaunch` values were made (a generic class has no static stored property).
private enum PerLaunchCount {
    nonisolated(unsafe) static var made = 0
    static let lock = NSLock()

    static func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        made += 1
        return made
    }
}
