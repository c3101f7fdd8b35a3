import DeviceProtocol
import FaultInjection
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Darwin-style notifications across processes sharing a device root (PROTOCOL.md §4).
///
/// One file per name under `<root>/notify/`, holding `v1 <generation> <state>`. `post` bumps the
/// generation under `notify/.lock` and lands it by temp + rename; every process with observers
/// watches `notify/` for IN_MOVED_TO on its one inotify thread and calls the handlers of a name
/// whose generation moved. Semantics are Darwin's: no payload, posts may coalesce, every live
/// registered observer (the poster's own included) gets at least one callback after a post,
/// processes not running get nothing, and a kernel queue overflow triggers a rescan that still
/// delivers at least one callback for every observed name whose generation moved.
///
/// Handlers run on the watcher thread, one at a time: keep them short, or hop to a queue.
public final class DarwinNotificationCenter: DirectoryEventSink, @unchecked Sendable {
    public struct ObserverToken: Hashable, Sendable {
        let id: UInt64
    }
    public struct CheckToken: Hashable, Sendable {
        let id: UInt64
        public let name: String
    }

    public typealias Handler = @Sendable (String) -> Void

    public static let directoryName = "notify"
    static let lockName = ".lock"
    static let maxFileBytes = 64

    public let deviceRoot: DeviceRoot
    let directory: SafeDirectory
    let lock: FileLock
    public let lockTimeout: Duration

    private let mutex = NSLock()
    private var nextId: UInt64 = 1
    private var observers: [String: [UInt64: Handler]] = [:]
    private var tokenNames: [UInt64: String] = [:]
    /// Last generation delivered per observed name.
    private var lastSeen: [String: UInt64] = [:]
    private var checkLast: [UInt64: UInt64?] = [:]
    private var watching = false
    /// `generation(_:)`'s cache: valid while `notify/.lock`'s header reads the same settled
    /// (high-water, landed sequence) pair (PROTOCOL.md §4.2).
    private var generationCache: [String: UInt64] = [:]
    private var generationCacheKey: (highWater: UInt64, sequence: UInt64)?
    /// Per name, the record this process last wrote (or read under the lock), the state epoch it
    /// was known under and the landed count after it: a post under the same epoch skips the read
    /// (PROTOCOL.md §4.2). Bounded: cleared past `maxKnownStates` names.
    private var knownStates: [String: (generation: UInt64, state: UInt64, epoch: UInt64, landed: UInt64)] = [:]
    static let maxKnownStates = 4096

    public init(deviceRoot: DeviceRoot, lockTimeout: Duration = .seconds(5)) throws {
        self.deviceRoot = deviceRoot
        self.lockTimeout = lockTimeout
        self.directory = try deviceRoot.subdirectory(Self.directoryName)
        self.lock = try FileLock(directory: directory, name: Self.lockName)
        directory.sweepDeadTemps()
    }

    /// The center for this process's device root (`SCREENTIME_DEVICE_ROOT`), like
    /// `CFNotificationCenterGetDarwinNotifyCenter()`.
    public static let shared: DarwinNotificationCenter? = {
        guard let env = AppGroupEnvironment.current else { return nil }
        return try? DarwinNotificationCenter(deviceRoot: env.deviceRoot)
    }()

    // MARK: Files

    /// What `notify/<name>` holds (PROTOCOL.md §4.2): nothing, a record, or something that is
    /// not one — and why (the reason a writer quarantines it under).
    public enum RecordFile: Equatable, Sendable {
        case absent
        case record(NotifyRecord)
        case corrupt(reason: String)
    }

    /// Reads `name` in `directory` (a device root's `notify/`) by PROTOCOL.md §4.2's rule: a regular file of
    /// at most 64 bytes holding one canonical record. Throws only for I/O errors. The writers'
    /// read and the harness's tamper scan share it.
    public static func readRecordFile(_ name: String, in directory: SafeDirectory) throws -> RecordFile {
        do {
            guard let bytes = try directory.readSmallFile(name, maxBytes: maxFileBytes) else { return .absent }
            return NotifyRecord.decode(bytes).map { .record($0) } ?? .corrupt(reason: "not a notify record")
        } catch AppGroupError.malformedFile(_, let reason) {
            return .corrupt(reason: reason)
        }
    }

    /// What `notify/<name>` holds now, corrupt included (`harness notify state` says so rather
    /// than print the 0 a malformed record reads as).
    public func recordFile(_ name: String) throws -> RecordFile {
        try NotifyName.validate(name)
        return try Self.readRecordFile(name, in: directory)
    }

    /// The current record of `name`, or nil if it was never posted. A malformed file reads as nil
    /// (the next setState, or post that reads it, quarantines it).
    func readRecord(_ name: String) throws -> NotifyRecord? {
        if case .record(let r) = try Self.readRecordFile(name, in: directory) { return r }
        return nil
    }

    private enum Change {
        case post
        case setState(UInt64)
    }

    /// Read-modify-write of one name's record under the namespace lock (PROTOCOL.md §4.2).
    ///
    /// `notify/.lock` also holds the namespace's high-water generation (8 bytes, little-endian,
    /// like a suite's lock file): a post writes `1 + max(the name's generation, high-water)`, so a
    /// generation never repeats one an observer may already have delivered — not after a corrupt
    /// record was quarantined, nor after a record was deleted. The high-water is raised before the
    /// rename, so a writer killed between the two leaves it ahead, never behind. Word 3 is the
    /// **state epoch**: raised before the rename of every write that may change a name's state
    /// (a setState, a write that replaced a corrupt record); a post whose name's state this
    /// process learned under the current epoch does not read the record (PROTOCOL.md §4.2, "Posting without
    /// reading").
    private func mutate(_ name: String, _ change: Change) throws {
        try NotifyName.validate(name)
        try lock.withLock(timeout: lockTimeout) {
            // high-water, landed high-water, landed count, state epoch
            let header = lock.readWords(4)
            let highWater = header[0]
            let isPost: Bool
            if case .post = change { isPost = true } else { isPost = false }
            var current: NotifyRecord?
            var quarantined = false
            mutex.lock()
            let known = knownStates[name]
            mutex.unlock()
            if isPost, let known, known.epoch == header[3], known.landed <= header[2] {
                // The state is the one this process last read or wrote, and no write that may
                // change a state began since; the high-water covers every conforming generation.
                current = NotifyRecord(generation: known.generation, state: known.state)
            } else {
                switch try Self.readRecordFile(name, in: directory) {
                case .absent: break
                case .record(let r): current = r
                case .corrupt(let reason):
                    try quarantine(name, reason: reason)
                    quarantined = true
                }
            }
            let next: NotifyRecord
            switch change {
            case .post:
                next = NotifyRecord(generation: NotifyRecord.generation(after: max(current?.generation ?? 0, highWater)), state: current?.state ?? 0)
            case .setState(let state):
                // A replaced corrupt record takes the high-water: at least what it may have had.
                next = NotifyRecord(generation: current?.generation ?? (quarantined ? highWater : 0), state: state)
            }
            let newHighWater = max(next.generation, highWater)
            // A setState changes a state; so does a post that replaced a corrupt record (with 0).
            let raisesEpoch = !isPost || quarantined
            let epoch = raisesEpoch ? header[3] &+ 1 : header[3]
            if raisesEpoch {
                // Before the rename, as the high-water: a writer killed after it has already told
                // every caching poster to read the record again.
                lock.writeWords([newHighWater, header[1], header[2], epoch], at: 0)
            } else if next.generation > highWater {
                lock.writeCounter(next.generation)
            }
            // The temp name carries the new generation ("g<gen>"), so an observer that sees the
            // rename's IN_MOVED_FROM learns it without opening the file (PROTOCOL.md §4.3).
            try directory.writeAtomically(name, bytes: next.encoded, fsync: false, tempTag: "g\(next.generation)")
            // Landed: the high-water this write settled on and one more landed write (PROTOCOL.md §4.2). A
            // reader caches generations only while these match the high-water, so a write under
            // way — or by a participant that does not write them — is never cached past.
            lock.writeWords([newHighWater, header[2] &+ 1], at: 1)
            // Our own landed write keeps `generation(_:)`'s cache valid when it was valid just
            // before it (we hold the lock: nothing else landed in between). The harness posts a
            // wake at every step of virtual time and would otherwise re-read every name it asks.
            mutex.lock()
            knownStates[name] = (generation: next.generation, state: next.state, epoch: epoch, landed: header[2] &+ 1)
            if knownStates.count > Self.maxKnownStates { knownStates = [name: knownStates[name]!] }
            if header[0] == header[1], let k = generationCacheKey, k == (highWater: header[0], sequence: header[2]) {
                generationCacheKey = (highWater: newHighWater, sequence: header[2] &+ 1)
                generationCache[name] = next.generation
            }
            mutex.unlock()
        }
    }

    private func quarantine(_ name: String, reason: String) throws {
        let aside = ".corrupt-\(Int64(Date().timeIntervalSince1970 * 1000))-\(name)"
        try directory.rename(name, to: String(aside.utf8.prefix(255))!)
        deviceRoot.recordQuarantine(file: "\(Self.directoryName)/\(name)", movedTo: "\(Self.directoryName)/\(aside)", reason: reason)
    }

    // MARK: Posting and state

    /// notify_post: bumps the generation; observers everywhere get at least one callback.
    public func post(_ name: String) throws {
        // A framework's own `system.*` post ends an OS call (its request file is written just
        // before): on iOS that call is one XPC message, whole once it returns, so dying between
        // the file and the post is not a place an app can die. The call's own crash point
        // (`notification.add`, `monitoring.start`, …) comes before it. Killing there made
        // explore blame hardened Pushin for a notification iOS would have kept.
        if !name.hasPrefix(Self.systemNamePrefix) { try CrashPoints.pass("post:" + name) }
        try mutate(name, .post)
    }

    /// The names the emulated iOS's frameworks post after their `system/` writes (PROTOCOL.md §4, CRASH-POINTS.md §11).
    public static let systemNamePrefix = "system."

    /// notify_set_state: stores a 64-bit state without posting.
    public func setState(_ name: String, _ state: UInt64) throws {
        try mutate(name, .setState(state))
    }

    /// notify_get_state: 0 for a name never set.
    public func state(_ name: String) throws -> UInt64 {
        try NotifyName.validate(name)
        return try readRecord(name)?.state ?? 0
    }

    /// The name's current generation (0 = never posted).
    ///
    /// Cached: one `pread` of `notify/.lock`'s header, then the record only when a write has
    /// landed since it was last read (PROTOCOL.md §4.2). The harness asks for a dozen names per
    /// step of virtual time, ~10,000 steps in a 24-hour run.
    public func generation(_ name: String) throws -> UInt64 {
        try generation(name, header: lock.readWords(3))
    }

    /// `generation(_:)` for several names as of one read of the namespace header: the harness asks
    /// a handful of names at every virtual-time step, and each asked read the header again (one
    /// `pread` per name). Posts that land after it may or may not be seen: take another after posting.
    /// A name that is not valid reads as 0.
    public func generationSnapshot() -> (String) -> UInt64 {
        let header = lock.readWords(3)
        return { [self] name in (try? generation(name, header: header)) ?? 0 }
    }

    private func generation(_ name: String, header: [UInt64]) throws -> UInt64 {
        try NotifyName.validate(name)
        guard header[0] == header[1] else { return try readRecord(name)?.generation ?? 0 }
        let key = (highWater: header[0], sequence: header[2])
        mutex.lock()
        if generationCacheKey.map({ $0 != key }) ?? true {
            generationCache.removeAll(keepingCapacity: true)
            generationCacheKey = key
        }
        if let g = generationCache[name] {
            mutex.unlock()
            return g
        }
        mutex.unlock()
        let g = try readRecord(name)?.generation ?? 0
        mutex.lock()
        if generationCacheKey.map({ $0 == key }) ?? false { generationCache[name] = g }
        mutex.unlock()
        return g
    }

    // MARK: Observers

    /// The generation of `name` last delivered to this process's observers (nil when unobserved).
    /// Read inside a handler, it is the generation that handler was called for.
    public func lastDelivered(_ name: String) -> UInt64? {
        mutex.lock()
        defer { mutex.unlock() }
        return lastSeen[name]
    }

    /// Registers `handler` for `name`. Posts that land after this returns produce callbacks.
    @discardableResult
    public func addObserver(_ name: String, handler: @escaping Handler) throws -> ObserverToken {
        try NotifyName.validate(name)
        let gen = try readRecord(name)?.generation ?? 0
        mutex.lock()
        let id = nextId
        nextId += 1
        if observers[name] == nil || observers[name]!.isEmpty { lastSeen[name] = gen }
        observers[name, default: [:]][id] = handler
        tokenNames[id] = name
        let needWatch = !watching
        watching = true
        mutex.unlock()
        if needWatch {
            do {
                try InotifyWatcher.shared.watch(directory: directory.path, sink: self)
            } catch {
                mutex.lock()
                watching = false
                observers[name]?[id] = nil
                tokenNames[id] = nil
                mutex.unlock()
                throw error
            }
            // A post may have landed between reading `gen` and the watch: catch it up.
            rescan()
        }
        return ObserverToken(id: id)
    }

    public func removeObserver(_ token: ObserverToken) {
        mutex.lock()
        defer { mutex.unlock() }
        guard let name = tokenNames.removeValue(forKey: token.id) else { return }
        observers[name]?[token.id] = nil
        if observers[name]?.isEmpty == true {
            observers[name] = nil
            lastSeen[name] = nil
        }
    }

    /// Stops watching: no more callbacks from this center. Prompt (the watcher is woken).
    public func shutdown() {
        mutex.lock()
        let wasWatching = watching
        watching = false
        observers.removeAll()
        tokenNames.removeAll()
        lastSeen.removeAll()
        mutex.unlock()
        if wasWatching { try? InotifyWatcher.shared.unwatch(directory: directory.path, sink: self) }
    }

    /// Stops the process's watcher thread altogether (all centers). Returns once it has exited.
    public static func stopWatcherThread() { InotifyWatcher.shared.stop() }

    // MARK: Check-style (notify_register_check / notify_check)

    public func registerCheck(_ name: String) throws -> CheckToken {
        try NotifyName.validate(name)
        mutex.lock()
        defer { mutex.unlock() }
        let id = nextId
        nextId += 1
        checkLast[id] = .some(nil)
        return CheckToken(id: id, name: name)
    }

    /// True on the first call and whenever the name was posted since the previous call.
    public func check(_ token: CheckToken) throws -> Bool {
        let gen = try readRecord(token.name)?.generation ?? 0
        mutex.lock()
        defer { mutex.unlock() }
        guard let last = checkLast[token.id] else { return false }
        checkLast[token.id] = gen
        return last != gen
    }

    // MARK: DirectoryEventSink (watcher thread)

    package func fileMovedIn(name: String, from: String?) {
        mutex.lock()
        let observed = observers[name] != nil
        mutex.unlock()
        guard observed else { return }
        if let from, let gen = Self.generation(fromTempName: from, name: name) {
            deliver(name, generation: gen)
        } else {
            deliverIfMoved(name)
        }
    }

    /// `.tmp.<pid>.<n>.g<gen>.<name>` → gen. Nil for any other shape (then the file is read).
    static func generation(fromTempName t: String, name: String) -> UInt64? {
        guard let tag = SafeDirectory.tag(ofTempName: t, finalName: name), tag.first == "g" else { return nil }
        return UInt64(tag.dropFirst())
    }

    package func rescan() {
        mutex.lock()
        let names = Array(observers.keys)
        mutex.unlock()
        for n in names { deliverIfMoved(n) }
    }

    private func deliverIfMoved(_ name: String) {
        guard let gen = (try? readRecord(name))??.generation else { return }
        deliver(name, generation: gen)
    }

    private func deliver(_ name: String, generation gen: UInt64) {
        mutex.lock()
        guard let handlers = observers[name], lastSeen[name] != gen else {
            mutex.unlock()
            return
        }
        lastSeen[name] = gen
        let list = Array(handlers.values)
        mutex.unlock()
        for h in list { h(name) }
    }
}
