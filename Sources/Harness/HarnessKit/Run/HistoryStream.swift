import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Streams the run's history to `<run-dir>/history.jsonl` while the run goes (HISTORY.md §8):
/// every `pumpIntervalMillis` a thread of its own appends each trace's new whole lines, in
/// arrival order, with one `write(2)` per trace. A harness killed at any instruction leaves a
/// history that lacks at most what arrived since the last pump and ends in at most one torn line;
/// the traces themselves are intact, and `harness check` merges them again. At the end the runner
/// replaces the file with the merged, sorted history (temp + rename).
package final class HistoryStream: @unchecked Sendable {
    package static let fileName = "history.jsonl"
    /// How often new trace lines are copied.
    static let pumpIntervalMillis: UInt32 = 100
    /// Bound on what one pump copies from one trace (a trace line is at most 16 KiB).
    static let maxChunkBytes = 1 << 20
    /// Bound on the traces of one run (one per process name).
    static let maxTraces = 4096

    let runDirectory: String
    private let fd: Int32
    private let lock = NSLock()
    private var offsets: [String: Int] = [:]
    private var stopRequested = false
    private let finished = DispatchSemaphore(value: 0)
    /// Ends the wait between two pumps at once when the run stops (it waited out the interval:
    /// ~50 ms of every run, a twentieth of an explore point).
    private let wake = DispatchSemaphore(value: 0)
    private var thread: Thread?

    /// Creates `<run-dir>/history.jsonl` and starts the thread; a stream that cannot open its file
    /// does nothing (the merge at the end still writes the history).
    package init(runDirectory: String) {
        self.runDirectory = runDirectory
        try? FileManager.default.createDirectory(atPath: runDirectory + "/trace", withIntermediateDirectories: true)
        fd = open(runDirectory + "/" + Self.fileName, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            finished.signal()
            return
        }
        let t = Thread { [self] in
            while !isStopRequested {
                pump()
                _ = wake.wait(timeout: .now() + .milliseconds(Int(Self.pumpIntervalMillis)))
            }
            pump()
            finished.signal()
        }
        t.name = "screentime.history-stream"
        thread = t
        t.start()
    }

    /// Whether `close` closed `fd`; whether the thread has ended (`stop` saw it), so `close` may.
    private var closed = false
    private var threadEnded = false

    deinit { if fd >= 0 && !closed { Glibc.close(fd) } }

    private var isStopRequested: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopRequested
    }

    /// Copies what is left and stops the thread (bounded: 5 s).
    package func stop() {
        lock.lock()
        let already = stopRequested
        stopRequested = true
        lock.unlock()
        if !already {
            wake.signal()
            // The thread holds this object until it ends, and `thread` holds the thread: let go.
            if finished.wait(timeout: .now() + .seconds(5)) == .success {
                lock.lock()
                threadEnded = true
                lock.unlock()
            }
            thread = nil
        }
    }

    /// Closes the history file once the thread has ended (`stop`): at the end of the run, not
    /// left to a deinit — a harness that runs many runs in one process ran out of descriptors.
    /// A thread still writing after `stop`'s bound keeps it. A `pump` afterwards copies nothing.
    package func close() {
        lock.lock()
        defer { lock.unlock() }
        guard threadEnded, !closed, fd >= 0 else { return }
        Glibc.close(fd)
        closed = true
    }

    private var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closed
    }

    /// One pass over `trace/*.jsonl`: appends every new whole line.
    func pump() {
        guard !isClosed else { return }
        let dir = runDirectory + "/trace"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
        for name in names.sorted().prefix(Self.maxTraces) where name.hasSuffix(".jsonl") && !name.hasPrefix(".") {
            let f = open(dir + "/" + name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            guard f >= 0 else { continue }
            defer { Glibc.close(f) }
            var st = stat()
            guard fstat(f, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            let from = offsets[name] ?? 0
            let available = Int(st.st_size) - from
            guard available > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: min(available, Self.maxChunkBytes))
            let n = chunk.withUnsafeMutableBytes { pread(f, $0.baseAddress, $0.count, off_t(from)) }
            guard n > 0 else { continue }
            guard let lastNewline = chunk[..<n].lastIndex(of: 0x0A) else {
                // No whole line in a full chunk: not a trace line (they are bounded); skip it.
                if n == Self.maxChunkBytes { offsets[name] = from + n }
                continue
            }
            let whole = lastNewline + 1
            let wrote = chunk.withUnsafeBytes { write(fd, $0.baseAddress, whole) }
            if wrote > 0 { offsets[name] = from + wrote }
        }
    }
}
