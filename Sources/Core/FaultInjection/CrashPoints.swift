import DeviceProtocol
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Every point where a stand-in process can be interrupted, with a stable label
/// `<process>:<kind>[:<detail>]#<n>` — the nth pass of that label in the run (CRASH-POINTS.md §11).
/// The core calls `pass` before every operation that leaves a mark another process or a relaunch
/// can see: each write of a shared or private suite (each key of a one-`set`-at-a-time write, since
/// each is its own write), each Darwin post, each heartbeat, each effect the interpreter carries
/// out on the device, each HTTP request before it is sent and each answer before the app reads
/// it, and each named protocol step (`Effect.step`). A pack gets them all without a line of its own.
///
/// Off unless the harness turns it on for the run (`SCREENTIME_CRASHPOINTS_DIR`): then each pass
/// is counted, appended to `<dir>/<process>.log` (so a relaunched process, or the next call of an
/// extension, continues the count) and checked against the armed failpoints
/// (`SCREENTIME_FAILPOINTS`). Off, a pass costs one Bool load; on and disarmed, a lock, a counter
/// increment, one dictionary lookup and one `write(2)` of the log line.
public enum CrashPoints {
    public static let directoryVariable = "SCREENTIME_CRASHPOINTS_DIR"
    /// Failpoints, one `label=chain` per line; each process keeps those of its own process name.
    public static let failpointsVariable = "SCREENTIME_FAILPOINTS"
    /// The seed of the failpoints' probability draws (the run's seed).
    public static let seedVariable = "SCREENTIME_FAILPOINT_SEED"
    /// Passes recorded per process in one run; past it, passes are still counted but not logged.
    public static let maxLoggedPasses = 1_000_000
    /// A log larger than this is not read back (a relaunch then counts from what it could read).
    static let maxLogBytes = 64 << 20

    /// The error an `error` failpoint makes the operation throw.
    public struct InjectedError: Error, CustomStringConvertible, Sendable {
        public let label: String
        public var description: String { "failpoint \(label): injected error" }
    }

    /// One process's crash points: its counts, log and armed failpoints. A process has one
    /// (`shared`); a stand-in the harness runs inside its own process (a thread of its own, see
    /// `installOnThisThread`) has its own, which wins on that thread.
    public final class State: @unchecked Sendable {
        var enabled = false
        var process = ""
        var seed: UInt64 = 0
        var logFd: Int32 = -1
        var logged = 0
        var counts: [String: Int] = [:]
        /// Armed failpoints by label (without process); each with its terms' counts left.
        var armed: [String: [(point: Failpoint, remaining: [Int?])]] = [:]
        /// Called before an action is carried out (the stand-in traces it; for `kill` it is the last line).
        var onFire: (@Sendable (_ label: String, _ term: Failpoint.Term) -> Void)?
        /// What `kill` does instead of SIGKILL to the process: an in-process stand-in ends only
        /// its own launch, as the kernel ends a killed process (`processEnded`: its flocks and
        /// files), and its thread never returns.
        var onKill: (@Sendable () -> Never)?
        /// The flocks this stand-in holds (`FileLock`), which its kill releases as the kernel
        /// releases a killed process's (only kept for an in-process stand-in's state).
        var heldFlocks: [Int32] = []
        /// What closes the files this stand-in opened (its trace), run when it ends, as the kernel
        /// closes a process's files (only kept for an in-process stand-in's state).
        var closeAtEnd: [@Sendable () -> Void] = []
        let lock = NSLock()

        public init(onKill: (@Sendable () -> Never)? = nil) { self.onKill = onKill }

        /// Releases every flock this stand-in holds: it ended (and will never run again).
        private func releaseFlocks() {
            lock.lock()
            let held = heldFlocks
            heldFlocks = []
            lock.unlock()
            for fd in held { flock(fd, LOCK_UN) }
        }

        /// An in-process stand-in ended (killed, or its thread returned): what the kernel does for
        /// a process that ends — its flocks released, its files (the log, its trace) closed.
        public func processEnded() {
            releaseFlocks()
            close()
            lock.lock()
            let closers = closeAtEnd
            closeAtEnd = []
            lock.unlock()
            for c in closers { c() }
        }

        /// Closes the log (an in-process stand-in that ended; `shared` lives as long as the process).
        public func close() {
            lock.lock()
            defer { lock.unlock() }
            if logFd >= 0 { Glibc.close(logFd) }
            logFd = -1
            enabled = false
        }
    }

    static let shared = State()
    /// True once crash points may be on in this process (`shared` configured, or a state installed
    /// on some thread): off, a pass costs this one Bool load.
    nonisolated(unsafe) private static var enabled = false
    nonisolated(unsafe) private static var threadStates = false
    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The state of the calling thread: its own if one is installed, else the turn holder's (a
    /// thread the in-process stand-in's own code started), else the process's.
    static var current: State {
        if threadStates {
            if let p = pthread_getspecific(threadKey) { return Unmanaged<State>.fromOpaque(p).takeUnretainedValue() }
            holderLock.lock()
            defer { holderLock.unlock() }
            if let h = holder { return h }
        }
        return shared
    }

    nonisolated(unsafe) private static var holder: State?
    private static let holderLock = NSLock()

    /// The in-process stand-in whose turn it is lends its state to threads without their own.
    public static func setTurnHolder(_ state: State?) {
        holderLock.lock()
        holder = state
        holderLock.unlock()
    }

    /// Makes `state` the calling thread's (nil: the process's again). The caller keeps it alive
    /// while it is installed. For stand-ins the harness runs in its own process, one per thread.
    public static func installOnThisThread(_ state: State?) {
        if state != nil {
            threadStates = true
            enabled = true
        }
        pthread_setspecific(threadKey, state.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
    }

    /// The calling thread's own state, if one is installed (`installOnThisThread`).
    static var threadState: State? {
        guard threadStates, let p = pthread_getspecific(threadKey) else { return nil }
        return Unmanaged<State>.fromOpaque(p).takeUnretainedValue()
    }

    /// A flock was taken / released (`FileLock`, a server's journal): an in-process stand-in's
    /// kill releases what it held, as the kernel does for a killed process.
    public static func flockTaken(_ fd: Int32) {
        guard let st = threadState else { return }
        st.lock.lock()
        st.heldFlocks.append(fd)
        st.lock.unlock()
    }

    /// A file the calling stand-in opened, which its end closes (`State.processEnded`) as the
    /// kernel closes a process's: kept only on an in-process stand-in's thread (a process of its
    /// own has the kernel).
    public static func closeAtProcessEnd(_ close: @escaping @Sendable () -> Void) {
        guard let st = threadState else { return }
        st.lock.lock()
        st.closeAtEnd.append(close)
        st.lock.unlock()
    }

    public static func flockReleased(_ fd: Int32) {
        guard let st = threadState else { return }
        st.lock.lock()
        if let i = st.heldFlocks.lastIndex(of: fd) { st.heldFlocks.remove(at: i) }
        st.lock.unlock()
    }

    /// Called before a failpoint's action is carried out (the calling thread's state's).
    public static var onFire: (@Sendable (_ label: String, _ term: Failpoint.Term) -> Void)? {
        get { current.onFire }
        set { current.onFire = newValue }
    }

    public static var isEnabled: Bool { enabled && current.enabled }

    /// Turns crash points on for `process` when the environment asks for it; reads back the passes
    /// of this process's earlier incarnations (`<dir>/<process>.log`) and arms its failpoints with
    /// their counts used up as far as those passes went. A failpoint that does not parse is
    /// thrown (the harness validated them; a hand-set variable may still be wrong).
    public static func configure(process: String, environment env: [String: String] = StandInEnvironment.current) throws {
        guard let dir = env[directoryVariable], !dir.isEmpty else { return }
        var points: [Failpoint] = []
        for line in (env[failpointsVariable] ?? "").split(whereSeparator: \.isNewline) {
            do {
                let p = try Failpoint.parse(String(line))
                if p.process == process { points.append(p) }
            } catch {
                throw InjectedError(label: "\(line): \(error)")
            }
        }
        let st = current
        st.lock.lock()
        defer { st.lock.unlock() }
        st.process = process
        st.seed = env[seedVariable].flatMap { UInt64($0) } ?? 0
        mkdir(dir, 0o700)
        let path = dir + "/" + process + ".log"
        let (counts, logged) = readBack(path: path, process: process)
        var armed: [String: [(point: Failpoint, remaining: [Int?])]] = [:]
        for p in points {
            let label = String(p.label.dropFirst(process.count + 1))
            var remaining = p.initialCounts
            for pass in stride(from: 1, through: counts[label] ?? 0, by: 1) { _ = p.evaluate(pass: pass, remaining: &remaining, seed: st.seed) }
            armed[label, default: []].append((p, remaining))
        }
        st.counts = counts
        st.logged = logged
        st.armed = armed
        if st.logFd >= 0 { close(st.logFd) }
        st.logFd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        st.enabled = true
        enabled = true
    }

    /// What the log at `path` holds of `process`'s passes: the count per label and the lines.
    /// Lines: <mono>\t<process>:<label>#<n>. A relaunch reads it all; in a harness that runs its
    /// stand-ins inside itself (one relaunch after another of the same log) the whole lines read
    /// before are kept (`logCache`) and only what was appended since is read.
    static func readBack(path: String, process: String) -> (counts: [String: Int], logged: Int) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return ([:], 0) }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size <= UInt64(maxLogBytes) else { return ([:], 0) }
        logCacheLock.lock()
        var entry = logCache[path] ?? LogRead()
        logCacheLock.unlock()
        if entry.process != process || entry.offset > Int(size) { entry = LogRead(process: process) }
        try? handle.seek(toOffset: UInt64(entry.offset))
        let data = (try? handle.readToEnd()) ?? Data()
        func parse(_ line: Data.SubSequence, into counts: inout [String: Int], logged: inout Int) {
            guard let tab = line.firstIndex(of: UInt8(ascii: "\t")),
                let text = String(bytes: line[(tab + 1)...], encoding: .utf8), let hash = text.lastIndex(of: "#"),
                let n = Int(text[text.index(after: hash)...])
            else { return }
            let full = String(text[..<hash])
            guard full.hasPrefix(process + ":") else { return }
            let label = String(full.dropFirst(process.count + 1))
            counts[label] = max(counts[label] ?? 0, n)
            logged += 1
        }
        // Whole lines are kept; a last line without its newline (a kill mid-write) is read as it is,
        // and again next time.
        let whole = data.lastIndex(of: UInt8(ascii: "\n")).map { data.index(after: $0) } ?? data.startIndex
        for line in data[data.startIndex..<whole].split(separator: UInt8(ascii: "\n")) { parse(line, into: &entry.counts, logged: &entry.logged) }
        entry.offset += whole - data.startIndex
        logCacheLock.lock()
        if logCache.count >= 256 { logCache = [:] }
        logCache[path] = entry
        logCacheLock.unlock()
        var counts = entry.counts, logged = entry.logged
        if whole < data.endIndex { parse(data[whole...], into: &counts, logged: &logged) }
        return (counts, logged)
    }

    struct LogRead {
        var process = ""
        var offset = 0
        var counts: [String: Int] = [:]
        var logged = 0
    }

    nonisolated(unsafe) private static var logCache: [String: LogRead] = [:]
    private static let logCacheLock = NSLock()

    /// A crash point: call it right before the operation `label` names. Returns at once when crash
    /// points are off. A failpoint armed here acts now: `kill` never returns, `error` throws
    /// `InjectedError`, `term` / `stop` / `delay` return after doing their part.
    @inline(__always)
    public static func pass(_ label: @autoclosure () -> String) throws {
        guard enabled else { return }
        try passEnabled(label())
    }

    /// `pass` for a call site that cannot fail: an `error` failpoint is traced and has no effect.
    @inline(__always)
    public static func passNonThrowing(_ label: @autoclosure () -> String) {
        guard enabled else { return }
        do { try passEnabled(label()) } catch {}
    }

    /// Turns crash points off again and forgets every count and failpoint (tests that configure
    /// them in their own process end with it).
    public static func reset() {
        let st = current
        st.lock.lock()
        defer { st.lock.unlock() }
        st.enabled = false
        if st.logFd >= 0 { close(st.logFd) }
        st.logFd = -1
        st.counts = [:]
        st.armed = [:]
        st.logged = 0
        if st === shared && !threadStates { enabled = false }
    }

    /// The passes so far in this process (its own and its earlier incarnations').
    public static func count(_ label: String) -> Int {
        let st = current
        st.lock.lock()
        defer { st.lock.unlock() }
        return st.counts[label] ?? 0
    }

    /// `label` with each UUID (8-4-4-4-12 hex digits, an app's `UUID().uuidString`) as `<uuid>`:
    /// a notification id the seed draws afresh in every run would make its crash point's label
    /// differ from run to run, so `harness explore` could never aim at it ("not reached"). The
    /// `#n` after it still tells the passes apart (the nth notification added).
    public static func stableLabel(_ label: String) -> String {
        let bytes = Array(label.utf8)
        guard bytes.count >= 36, bytes.contains(UInt8(ascii: "-")) else { return label }
        func isHex(_ b: UInt8) -> Bool {
            (b >= 48 && b <= 57) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102)
        }
        let groups = [8, 4, 4, 4, 12]
        func uuid(at start: Int) -> Bool {
            var i = start
            for (g, n) in groups.enumerated() {
                guard i + n <= bytes.count, bytes[i..<(i + n)].allSatisfy(isHex) else { return false }
                i += n
                if g < groups.count - 1 {
                    guard i < bytes.count, bytes[i] == UInt8(ascii: "-") else { return false }
                    i += 1
                }
            }
            // Not part of a longer run of hex digits.
            return (start == 0 || !isHex(bytes[start - 1])) && (i == bytes.count || !isHex(bytes[i]))
        }
        var out: [UInt8] = []
        var i = 0
        var changed = false
        while i < bytes.count {
            if bytes.count - i >= 36, uuid(at: i) {
                out += Array("<uuid>".utf8)
                i += 36
                changed = true
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return changed ? String(decoding: out, as: UTF8.self) : label
    }

    private static func passEnabled(_ rawLabel: String) throws {
        let label = stableLabel(rawLabel)
        let st = current
        st.lock.lock()
        guard st.enabled else {
            st.lock.unlock()
            return
        }
        let n = (st.counts[label] ?? 0) + 1
        st.counts[label] = n
        if st.logFd >= 0 && st.logged < maxLoggedPasses {
            st.logged += 1
            var ts = timespec()
            clock_gettime(CLOCK_MONOTONIC, &ts)
            let line = "\(Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))\t\(st.process):\(label)#\(n)\n"
            _ = line.withCString { write(st.logFd, $0, strlen($0)) }
        }
        var action: Failpoint.Term?
        if var entries = st.armed[label] {
            for i in entries.indices where action == nil {
                action = entries[i].point.evaluate(pass: n, remaining: &entries[i].remaining, seed: st.seed)
            }
            st.armed[label] = entries
        }
        let onFire = st.onFire, onKill = st.onKill
        st.lock.unlock()
        guard let action else { return }
        let full = "\(st.process):\(label)#\(n)"
        onFire?(full, action)
        switch action.action {
        case .off: return
        case .kill:
            killSelf(st)
        case .term:
            // An in-process stand-in is never signalled (the harness refuses these there).
            if onKill == nil { kill(getpid(), SIGTERM) }
        case .stop:
            if onKill != nil { return }
            stopSelf(milliseconds: action.milliseconds ?? 0)
        case .delay:
            usleep(useconds_t(min(action.milliseconds ?? 0, Failpoint.maxMilliseconds)) * 1000)
        case .error:
            throw InjectedError(label: full)
        }
    }

    /// The calling stand-in dies where it stands (a kill failpoint, a torn write): a process of its
    /// own by SIGKILL; inside the harness its launch ends here (`onKill`: as the kernel ends a
    /// killed process) and its thread never runs again.
    public static func killSelf() -> Never { killSelf(current) }

    private static func killSelf(_ st: State) -> Never {
        if let onKill = st.onKill { onKill() }
        kill(getpid(), SIGKILL)
        while true { pause() }
    }

    /// Freezes the whole process for `milliseconds` of wall time: a forked waker (which only
    /// sleeps, sends SIGCONT and exits: async-signal-safe calls alone) continues it.
    static func stopSelf(milliseconds: Int) {
        let parent = getpid()
        let child = fork()
        if child == 0 {
            var ts = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
            var left = timespec()
            while nanosleep(&ts, &left) == -1 && errno == EINTR { ts = left }
            kill(parent, SIGCONT)
            _exit(0)
        }
        guard child > 0 else { return }
        kill(parent, SIGSTOP)
        var status: Int32 = 0
        while waitpid(child, &status, 0) == -1 && errno == EINTR {}
    }

    /// Reads every process's log in `directory` (a run's `crashpoints/`): each pass as
    /// `<process>:<label>#<n>`, in the order they happened (CLOCK_MONOTONIC, then the line).
    ///
    /// `stepStarts` (virtual time: CLOCK_MONOTONIC when the harness moved the clock, ascending)
    /// orders them the same way in every rerun instead: by the step they fell in, then by process
    /// (its log's name), then in that process's own order. Two processes acting at one device
    /// instant — an extension answering while the host reacts to its post — race in wall time, so
    /// their passes' CLOCK_MONOTONIC order differed between runs of the same scenario (focuspledge-
    /// field: two runs put `shield-action-extension:respond#1` on either side of two host points),
    /// and `--shard`, `--max` and `--resume`, which go by the position in this list, need one order.
    public static func recorded(in directory: String, stepStarts: [Int64]? = nil) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var passes: [(mono: Int64, file: Int, line: Int, label: String)] = []
        for (file, name) in names.sorted().filter({ $0.hasSuffix(".log") }).enumerated() {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name), data.count <= maxLogBytes else { continue }
            for line in data.split(separator: UInt8(ascii: "\n")) {
                guard let tab = line.firstIndex(of: UInt8(ascii: "\t")),
                    let mono = Int64(String(decoding: line[..<tab], as: UTF8.self)),
                    let label = String(bytes: line[(tab + 1)...], encoding: .utf8), label.contains("#")
                else { continue }
                passes.append((mono, file, passes.count, label))
            }
        }
        guard let starts = stepStarts else {
            return passes.sorted { ($0.mono, $0.line) < ($1.mono, $1.line) }.map(\.label)
        }
        /// How many steps had begun by `mono`: the step the pass fell in.
        func step(_ mono: Int64) -> Int {
            var lo = 0, hi = starts.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if starts[mid] <= mono { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
        let keyed = passes.map { p in (step: step(p.mono), file: p.file, line: p.line, label: p.label) }
        return keyed.sorted { ($0.step, $0.file, $0.line) < ($1.step, $1.file, $1.line) }.map(\.label)
    }
}
