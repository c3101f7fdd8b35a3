import DeviceProtocol
import FaultInjection
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Cross-process shared defaults with UserDefaults' method names (PROTOCOL.md §3).
///
/// One XML plist per suite at `containers/<group>/Library/Preferences/<suite>.plist`. Every
/// mutation is read-modify-write under `<suite>.plist.lock` (flock) and lands as temp + fsync +
/// rename, so a SIGKILL at any instruction leaves the old or the new file and no concurrent
/// writer's update is lost. After the rename the writer bumps the generation counter stored in
/// the lock file; readers serve from a per-process cache validated by that counter plus an
/// `fstatat` of the plist (inode, size, mtime, ctime) — two syscalls, no parse.
///
/// A corrupt or truncated suite is moved aside to `<suite>.plist.corrupt-<unix ms>`, recorded in
/// `<root>/quarantine.jsonl`, printed to stderr, and the suite starts empty.
public final class SharedDefaults: @unchecked Sendable {
    /// A single value's encoded size limit (UserDefaults has none on iOS, but multi-megabyte
    /// defaults are a bug; a clear error beats a slow device).
    public static let maxValueBytes = 512 * 1024
    /// The whole suite file's limit, for every path in (PROTOCOL.md §3): a write that would pass it
    /// is refused, and a file found larger (another writer's) is corrupt. One limit both ways, so
    /// a suite that can be read can always be written again.
    public static let maxSuiteBytes = 4 * 1024 * 1024

    public let suiteName: String
    public let container: AppGroupContainer
    public let lockTimeout: Duration
    /// fsync the temp file before rename (survives power loss, not just process death).
    public let durable: Bool
    /// Called with every error the non-throwing UserDefaults-shaped methods swallow.
    public var onError: (@Sendable (AppGroupError) -> Void)?
    /// Called when a harness-armed fault (`DefaultsFaults`) acts: `stale_read` or `torn_write`.
    public var onFault: (@Sendable (String, [String: String]) -> Void)?
    /// Told of every write that landed: the keys it changed and their new values (nil = removed),
    /// after the rename. Stand-ins trace it when the harness asks (PROTOCOL.md §3), so a seed's
    /// own code shows in the history what it wrote.
    public var onWrite: (@Sendable ([String: PropertyListValue?]) -> Void)?
    /// The harness's faults for this process (`DefaultsFaults.current`); nil = none.
    public var faults: DefaultsFaults? = DefaultsFaults.current
    private lazy var faultClock = DeviceClock(deviceRoot: container.deviceRoot)
    /// Stale fault: device time at which this reader first saw the suite changed and kept its cache.
    private var staleSince: Double?
    /// Data protection (PROTOCOL.md §3 "Before first unlock"): on when the harness locks the device
    /// after a reboot (`dataProtectionVariable` = 1). Off, nothing is looked at.
    public var dataProtection: Bool = SharedDefaults.dataProtectionFromEnvironment()
    /// This process read the suite while the device was locked before its first unlock: it saw
    /// the suite empty and keeps that view (and its own writes) for its life.
    private var pinnedByLock = false

    public static let dataProtectionVariable = "SCREENTIME_DATA_PROTECTION"
    /// This process's setting (read once), or inside the harness the launch's own environment's.
    static func dataProtectionFromEnvironment() -> Bool {
        StandInEnvironment.isThreadOwn ? StandInEnvironment.current[dataProtectionVariable] == "1" : dataProtectionOfTheProcess
    }
    private static let dataProtectionOfTheProcess = ProcessInfo.processInfo.environment[dataProtectionVariable] == "1"
    /// The file whose presence means "locked, before first unlock", relative to the device root.
    public static let lockedMarker = "locked-before-first-unlock"
    /// Told of a fault of an instance with no `onFault` of its own (a seed's own
    /// `UserDefaults(suiteName:)`); stand-ins trace it. Inside the harness, each launch's own.
    public static var faultObserver: (@Sendable (String, [String: String]) -> Void)? {
        get { faultObserverValue.value }
        set { faultObserverValue.value = newValue }
    }
    private static let faultObserverValue = PerLaunch<(@Sendable (String, [String: String]) -> Void)?>(nil)

    private func fault(_ kind: String, _ fields: [String: String]) {
        if let onFault { onFault(kind, fields) } else { Self.faultObserver?(kind, fields) }
    }

    private func deviceLocked() -> Bool {
        access(container.deviceRoot.path + "/" + Self.lockedMarker, F_OK) == 0
    }

    let fileName: String
    let directory: SafeDirectory
    let fileLock: FileLock
    private let mutex = NSLock()
    private var cache: [String: PropertyListValue] = [:]
    private var cacheStamp: Stamp?
    private var registered: [String: PropertyListValue] = [:]

    /// What the cache was read from. Equal stamps mean the file has not changed.
    struct Stamp: Equatable {
        var generation: UInt64
        var inode: UInt64
        var size: Int64
        var mtimeNanos: Int64
        var ctimeNanos: Int64
        var exists: Bool
    }

    static func validate(suiteName s: String) throws {
        if s.isEmpty || s.hasPrefix(".") || s.contains("/") || s.utf8.contains(0) || s.utf8.count > 200 {
            throw AppGroupError.invalidSuiteName(s)
        }
    }

    public init(container: AppGroupContainer, suiteName: String, lockTimeout: Duration = .seconds(5), durable: Bool = true) throws {
        try Self.validate(suiteName: suiteName)
        self.suiteName = suiteName
        self.container = container
        self.lockTimeout = lockTimeout
        self.durable = durable
        self.fileName = suiteName + ".plist"
        self.directory = try container.subdirectory("Library/Preferences")
        self.fileLock = try FileLock(directory: directory, name: fileName + ".lock")
        directory.sweepDeadTemps(matching: "." + fileName)
    }

    /// UserDefaults(suiteName:) for an app group suite: nil unless this process is entitled to it.
    public convenience init?(suiteName: String) {
        if AppGroupEnvironment.unavailableToAppCode {
            Self.faultObserver?("app_group_unavailable", ["suite": suiteName, "call": "UserDefaults(suiteName:)"])
            return nil
        }
        guard let env = AppGroupEnvironment.current, let c = try? env.container(suiteName) else { return nil }
        try? self.init(container: c, suiteName: suiteName)
        if let observe = Self.suiteWriteObserver { onWrite = { observe(suiteName, $0) } }
    }

    /// Told of every write that landed through a suite app code opened with `init?(suiteName:)`
    /// (a seed's `UserDefaults(suiteName:)`): the suite and the keys it changed. A stand-in sets it
    /// once, before app code runs, when the harness asks for traced writes (PROTOCOL.md §3).
    /// Inside the harness, each launch's own (`PerLaunch`).
    public static var suiteWriteObserver: (@Sendable (String, [String: PropertyListValue?]) -> Void)? {
        get { suiteWriteObserverValue.value }
        set { suiteWriteObserverValue.value = newValue }
    }
    private static let suiteWriteObserverValue = PerLaunch<(@Sendable (String, [String: PropertyListValue?]) -> Void)?>(nil)

    // MARK: Reading

    private func currentStamp() throws -> Stamp {
        let gen = fileLock.readCounter()
        guard let st = try directory.statEntry(fileName) else {
            return Stamp(generation: gen, inode: 0, size: 0, mtimeNanos: 0, ctimeNanos: 0, exists: false)
        }
        return Stamp(
            generation: gen, inode: UInt64(st.st_ino), size: Int64(st.st_size),
            mtimeNanos: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
            ctimeNanos: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec), exists: true)
    }

    /// Brings the cache up to date. Caller holds `mutex`. `underFileLock`: may quarantine directly.
    private func refresh(underFileLock: Bool) throws {
        if dataProtection {
            // Quinn, forum thread 15685: the store is a file under
            // NSFileProtectionCompleteUntilFirstUserAuthentication; read before the first unlock
            // the process sees none of its values, and keeps that until it is relaunched.
            if pinnedByLock { return }
            if deviceLocked() {
                pinnedByLock = true
                cache = [:]
                fault("locked_read", ["suite": suiteName])
                return
            }
        }
        let stamp = try currentStamp()
        if stamp == cacheStamp { return }
        if !underFileLock, cacheStamp != nil, keepStaleCache() { return }
        guard stamp.exists else {
            cache = [:]
            cacheStamp = stamp
            return
        }
        do {
            guard let bytes = try directory.readFile(fileName, limitBytes: Self.maxSuiteBytes) else {
                cache = [:]
                cacheStamp = try currentStamp()
                return
            }
            let (values, badKeys) = try Self.decodeSuite(bytes)
            cache = values
            // Stamp taken before the read: if the file changed meanwhile, the next read reloads.
            cacheStamp = stamp
            // Said once per version of the file this reader reads; a write drops it from the file.
            recordLeftOut(badKeys)
        } catch let e as PropertyListCodec.Malformed {
            try quarantine(reason: e.reason, underFileLock: underFileLock)
        } catch AppGroupError.malformedFile(_, let reason) {
            try quarantine(reason: reason, underFileLock: underFileLock)
        }
    }

    /// A suite file's contents, or `Malformed` when it is not one or breaks a limit a write would
    /// have refused: larger than `maxSuiteBytes` (checked by the read), or a value whose encoding is
    /// over `maxValueBytes`. Our encoding inflates a value at most ~11× (64 tabs of indentation
    /// per nested line, `>` → `&gt;`), so a file under 1/16 of the value limit cannot hold one.
    /// Its keys whose value is no value of its type (`badKeys`) are left out, not the whole suite.
    static func decodeSuite(_ bytes: [UInt8]) throws -> (values: [String: PropertyListValue], badKeys: [(key: String, reason: String)]) {
        let (suite, badKeys) = try PropertyListCodec.decodeDictionaryKeepingGoodKeys(bytes)
        if bytes.count > maxValueBytes / 16 {
            for (k, v) in suite {
                let size = PropertyListCodec.encodedSize(v)
                if size > maxValueBytes {
                    throw PropertyListCodec.Malformed(
                        reason: "value for key \(String(reflecting: k)) is \(size) bytes encoded; the limit is \(maxValueBytes) bytes")
                }
            }
        }
        return (suite, badKeys)
    }

    /// What a `quarantine.jsonl` record of one key left out of a suite says first (PROTOCOL.md §3).
    public static let keyLeftOut = "key left out of the suite:"

    /// A key whose value is no value of its type is left out alone (PROTOCOL.md §3) and recorded.
    private func recordLeftOut(_ badKeys: [(key: String, reason: String)]) {
        for bad in badKeys {
            let file = "\(container.relativePath)/Library/Preferences/\(fileName)"
            container.deviceRoot.recordQuarantine(file: file, movedTo: file, reason: "\(Self.keyLeftOut) \(String(reflecting: bad.key)): \(bad.reason)")
        }
    }

    /// Stale fault: true while this reader keeps serving its cache although the suite changed.
    private func keepStaleCache() -> Bool {
        guard let faults else { return false }
        let now = faultClock.nowUnixSeconds()
        guard let seconds = faults.staleSeconds(at: now) else {
            staleSince = nil
            return false
        }
        if staleSince == nil {
            staleSince = now
            onFault?("stale_read", ["suite": suiteName, "staleSeconds": String(seconds)])
        }
        if now < staleSince! + seconds { return true }
        staleSince = nil
        return false
    }

    /// Torn-write fault: lands the first changed key of a multi-key write, then dies.
    private func tearIfArmed(_ next: [String: PropertyListValue]) throws {
        guard let faults, let rule = faults.tornRule(at: faultClock.nowUnixSeconds()) else { return }
        let changed = Set(next.keys).union(cache.keys).filter { next[$0] != cache[$0] }.sorted()
        guard changed.count >= 2, DefaultsFaults.claimTear(rule, root: container.deviceRoot) else { return }
        var partial = cache
        partial[changed[0]] = next[changed[0]]
        try writePlist(PropertyListCodec.encode(partial))
        onFault?("torn_write", ["suite": suiteName, "landed": changed[0], "lost": changed.dropFirst().joined(separator: ",")])
        CrashPoints.killSelf()
    }

    // MARK: Which plist the writers put in place (PROTOCOL.md §3: the lock file's words 1 and 2)

    /// What a `quarantine.jsonl` record of a suite replaced from outside says first.
    public static let replacedFromOutside = "replaced from outside the protocol"

    /// Writes the plist (temp + rename) under the lock: the temp's inode is recorded as pending
    /// (word 2) before the rename, and after it the generation is bumped with that inode as the
    /// committed one (words 0 and 1, one `pwrite`). Killed anywhere in between, the plist in place
    /// is the committed or the pending one; anything else was put there from outside.
    private func writePlist(_ bytes: [UInt8]) throws {
        var landed: UInt64 = 0
        try directory.writeAtomically(fileName, bytes: bytes, fsync: durable, inodeBeforeRename: { [fileLock] inode in
            landed = inode
            fileLock.writeWords([inode], at: 2)
        })
        fileLock.writeWords([fileLock.readCounter() &+ 1, landed], at: 0)
    }

    /// Under the lock, before a write: the plist in place should be the committed or the pending
    /// one. One that is neither — swapped by someone outside the run, valid or not — is recorded
    /// (`quarantine.jsonl`; the harness calls it tampering) and then written over as the suite it
    /// holds. Suites whose words were never written (0, 0) are not judged.
    private func noteReplacedPlist() {
        let words = fileLock.readWords(3)
        let (committed, pending) = (words[1], words[2])
        guard committed != 0 || pending != 0, let st = try? directory.statEntry(fileName), st.st_mode & S_IFMT == S_IFREG else { return }
        let inode = UInt64(st.st_ino)
        guard inode != committed && inode != pending else { return }
        let file = "\(container.relativePath)/Library/Preferences/\(fileName)"
        container.deviceRoot.recordQuarantine(
            file: file, movedTo: file,
            reason: "\(Self.replacedFromOutside): inode \(inode), its writers last put \(committed) in place (pending \(pending)); written over as found")
    }

    /// Moves the corrupt file aside (under the file lock, after re-checking it is still the
    /// corrupt one), records it, and starts the suite empty.
    private func quarantine(reason: String, underFileLock: Bool) throws {
        if !underFileLock { try fileLock.lock(timeout: lockTimeout) }
        defer { if !underFileLock { fileLock.unlock() } }
        // Another process may have replaced or quarantined it meanwhile: re-validate under the lock.
        if let bytes = try? directory.readFile(fileName, limitBytes: Self.maxSuiteBytes),
            let d = try? Self.decodeSuite(bytes).values
        {
            cache = d
            cacheStamp = try currentStamp()
            return
        }
        if try directory.statEntry(fileName) != nil {
            let aside = "\(fileName).corrupt-\(Int64(Date().timeIntervalSince1970 * 1000))"
            try directory.rename(fileName, to: aside)
            fileLock.writeCounter(fileLock.readCounter() &+ 1)
            let preferences = "\(container.relativePath)/Library/Preferences/"
            container.deviceRoot.recordQuarantine(file: preferences + fileName, movedTo: preferences + aside, reason: reason)
        }
        cache = [:]
        cacheStamp = try currentStamp()
    }

    /// The suite's persisted values (no registered defaults). Throws on I/O trouble.
    public func snapshot() throws -> [String: PropertyListValue] {
        mutex.lock()
        defer { mutex.unlock() }
        try refresh(underFileLock: false)
        return cache
    }

    public func value(forKey key: String) throws -> PropertyListValue? {
        mutex.lock()
        defer { mutex.unlock() }
        try refresh(underFileLock: false)
        return cache[key] ?? registered[key]
    }

    private func lookup(_ key: String) -> PropertyListValue? {
        do {
            return try value(forKey: key)
        } catch {
            report(error)
            mutex.lock()
            defer { mutex.unlock() }
            return cache[key] ?? registered[key]
        }
    }

    private func report(_ error: Error) {
        let e = (error as? AppGroupError) ?? .malformedFile(path: fileName, reason: "\(error)")
        FileHandle.standardError.write(Data("screentime: defaults \(suiteName): \(e)\n".utf8))
        onError?(e)
    }

    // MARK: UserDefaults' read methods

    public func object(forKey key: String) -> Any? { lookup(key)?.anyValue }
    public func string(forKey key: String) -> String? { lookup(key)?.stringValue }
    public func bool(forKey key: String) -> Bool { lookup(key)?.boolValue ?? false }
    public func integer(forKey key: String) -> Int { lookup(key)?.integerValue ?? 0 }
    public func double(forKey key: String) -> Double { lookup(key)?.doubleValue ?? 0 }
    public func float(forKey key: String) -> Float { Float(double(forKey: key)) }
    public func data(forKey key: String) -> Data? {
        if case .data(let d)? = lookup(key) { return d }
        return nil
    }
    public func array(forKey key: String) -> [Any]? {
        if case .array(let a)? = lookup(key) { return a.map(\.anyValue) }
        return nil
    }
    public func dictionary(forKey key: String) -> [String: Any]? {
        if case .dictionary(let d)? = lookup(key) { return d.mapValues(\.anyValue) }
        return nil
    }
    public func stringArray(forKey key: String) -> [String]? {
        guard case .array(let a)? = lookup(key) else { return nil }
        var out: [String] = []
        for e in a {
            guard case .string(let s) = e else { return nil }
            out.append(s)
        }
        return out
    }

    public func register(defaults: [String: Any]) {
        mutex.lock()
        defer { mutex.unlock() }
        for (k, v) in defaults {
            if let pv = PropertyListValue(any: v) { registered[k] = pv }
        }
    }

    public func dictionaryRepresentation() -> [String: Any] {
        let persisted: [String: PropertyListValue]
        do { persisted = try snapshot() } catch {
            report(error)
            mutex.lock()
            persisted = cache
            mutex.unlock()
        }
        mutex.lock()
        defer { mutex.unlock() }
        return registered.merging(persisted) { _, p in p }.mapValues(\.anyValue)
    }

    /// Documented as unnecessary on iOS; here it re-validates the cache and reports whether the
    /// suite could be read.
    @discardableResult
    public func synchronize() -> Bool {
        do {
            _ = try snapshot()
            return true
        } catch {
            report(error)
            return false
        }
    }

    // MARK: Writing

    /// The atomic multi-key write: `body` edits the current contents; all its changes land in one
    /// rename or none do. Runs under the cross-process lock — keep it short.
    @discardableResult
    public func update<T>(_ body: (inout [String: PropertyListValue]) throws -> T) throws -> T {
        mutex.lock()
        defer { mutex.unlock() }
        try fileLock.lock(timeout: lockTimeout)
        defer { fileLock.unlock() }
        noteReplacedPlist()
        try refresh(underFileLock: true)
        var next = cache
        let result = try body(&next)
        if next == cache { return result }
        for (k, v) in next where cache[k] != v {
            let size = PropertyListCodec.encodedSize(v)
            if size > Self.maxValueBytes { throw AppGroupError.valueTooLarge(key: k, bytes: size, limitBytes: Self.maxValueBytes) }
            // Written deeper than every reader parses, the whole suite would be quarantined.
            // What XML 1.0 cannot hold is refused: another language's reader would quarantine the suite.
            if let c = k.unicodeScalars.first(where: { !PropertyListCodec.isXMLCharacter($0) }) ?? PropertyListCodec.firstNonXMLCharacter(v) {
                throw AppGroupError.notXMLText(key: k, scalar: c.value)
            }
            if PropertyListCodec.holdsUnwritableDate(v) { throw AppGroupError.dateOutOfRange(key: k) }
            let nesting = PropertyListCodec.nesting(v)
            if nesting > PropertyListCodec.maxValueNesting {
                throw AppGroupError.valueTooDeep(key: k, nesting: nesting, limit: PropertyListCodec.maxValueNesting)
            }
        }
        let bytes = PropertyListCodec.encode(next)
        if bytes.count > Self.maxSuiteBytes {
            throw AppGroupError.suiteTooLarge(suite: suiteName, bytes: bytes.count, limitBytes: Self.maxSuiteBytes)
        }
        // A crash point per write (CrashPoints): a one-`set`-at-a-time write is one per key.
        let changedKeys = Set(next.keys).union(cache.keys).filter { next[$0] != cache[$0] }.sorted()
        try CrashPoints.pass("defaults:\(suiteName)/" + changedKeys.joined(separator: ","))
        var written = bytes
        if pinnedByLock {
            if deviceLocked() {
                // The file cannot be opened before the first unlock: the write stays in this
                // process's view only.
                fault("locked_write", ["suite": suiteName, "keys": changedKeys.joined(separator: ",")])
                cache = next
                return result
            }
            // Unlocked, a process still holding its locked view writes only the keys it changed
            // (cfprefsd merges per key); its view stays its own.
            let decoded = (try directory.readFile(fileName, limitBytes: Self.maxSuiteBytes)).flatMap { try? Self.decodeSuite($0) }
            recordLeftOut(decoded?.badKeys ?? [])
            var base = decoded?.values ?? [:]
            for k in changedKeys { base[k] = next[k] }
            written = PropertyListCodec.encode(base)
        }
        // A torn write lands part of this process's view: a view pinned before the first unlock
        // would write its emptiness over the file, which no real tear does.
        if !pinnedByLock { try tearIfArmed(next) }
        try writePlist(written)
        if let onWrite {
            var changed: [String: PropertyListValue?] = [:]
            for (k, v) in next where cache[k] != v { changed[k] = .some(v) }
            for k in cache.keys where next[k] == nil { changed[k] = .some(nil) }
            onWrite(changed)
        }
        cache = next
        if !pinnedByLock { cacheStamp = try currentStamp() }
        return result
    }

    /// Sets several keys in one atomic write (a nil value removes the key).
    public func setValues(_ values: [String: Any?]) throws {
        var converted: [String: PropertyListValue?] = [:]
        for (k, v) in values {
            if let v {
                guard let pv = PropertyListValue(any: v) else {
                    throw AppGroupError.notAPropertyListValue(key: k, type: String(describing: type(of: v)))
                }
                converted[k] = pv
            } else {
                converted[k] = .some(nil)
            }
        }
        try update { d in
            for (k, v) in converted { d[k] = v }
        }
    }

    /// Throwing single-key set (nil removes).
    public func store(_ value: Any?, forKey key: String) throws {
        try setValues([key: value])
    }

    // UserDefaults' write methods: never throw; failures go to stderr and `onError`.
    public func set(_ value: Any?, forKey key: String) {
        do { try store(value, forKey: key) } catch { report(error) }
    }
    public func set(_ value: Int, forKey key: String) { set(value as Any?, forKey: key) }
    public func set(_ value: Double, forKey key: String) { set(value as Any?, forKey: key) }
    public func set(_ value: Bool, forKey key: String) { set(value as Any?, forKey: key) }
    public func set(_ value: Float, forKey key: String) { set(value as Any?, forKey: key) }
    public func set(_ url: URL?, forKey key: String) { set(url.map { $0 as Any }, forKey: key) }
    public func removeObject(forKey key: String) { set(nil as Any?, forKey: key) }
}
