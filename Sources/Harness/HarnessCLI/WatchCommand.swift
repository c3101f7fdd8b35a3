import AppGroup
import ArgumentParser
import Foundation
import History
import HarnessKit
import TreeWatch

#if canImport(Glibc)
import Glibc
#endif

/// `harness watch [RUN_DIR | DEVICE_ROOT]`: a live, decoded feed of what the processes do to the
/// shared directory — `inotifywait -m -r` that can read a notify record, a suite, a `system/`
/// record, and say which process wrote it. Built on libinotifytools (`TreeWatch`): new directories
/// are followed as they appear. An observer: it never writes, locks or holds back a participant.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "A live feed of a device root's changes in the system's terms (follows a run by its run directory).",
        discussion: """
            One line per change: device time, the area (notify, defaults, managedsettings, deviceactivity, \
            authorization, notifications, system, heartbeat, quarantine, file), what it is about, what changed, \
            and the writer ([role, pid N]) where the temp file's name tells it — named from the run's history \
            when a run directory is given. Stops at Ctrl-C, --count lines, --for, or when the device root is \
            removed (the run ended): exit 0.
            """)

    @Argument(help: "A run directory (a running `harness run`'s: its device root is followed) or a device root. Default: --device-root, else $SCREENTIME_DEVICE_ROOT, else the default root.")
    var path: String?
    @OptionGroup var root: DeviceRootOptions
    @Flag(help: "One JSON object per line (t, time, area, subject, file, change, writerPid, writer).") var json = false
    @Option(name: .customLong("filter"), help: "Only lines whose area, subject or file contains TEXT (repeatable: any of them).")
    var filters: [String] = []
    @Option(parsing: .unconditional, help: "Stop after this many lines (1...1000000).") var count: Int?
    @Option(name: .customLong("for"), parsing: .unconditional, help: "Stop after this much wall time (e.g. 30s, 5m).") var duration: String?

    /// How long a run directory may take to say its device root (a run just started).
    static let runStartSeconds = 10.0

    func run() throws {
        if let count, !(1...1_000_000).contains(count) { throw InputError("--count \(count): must be 1...1000000") }
        var stopAt: Double?
        if let duration {
            guard let s = ScenarioDuration.seconds(from: duration), s > 0 else {
                throw InputError("--for \(String(reflecting: duration)): use e.g. 30s, 5m or 2h (more than 0)")
            }
            stopAt = Self.wallNow() + Double(s)
        }
        let (rootPath, names) = try resolve()
        let watch: TreeWatch
        do { watch = try TreeWatch(root: rootPath, deletions: true) } catch {
            throw InputError("cannot watch \(rootPath): \(error) (see `harness doctor`)")
        }
        defer { watch.close() }
        let deviceRoot = try DeviceRoot(path: rootPath, create: false)
        var rootStat = stat()
        _ = lstat(rootPath, &rootStat)
        let feed = WatchFeed(root: deviceRoot, names: names)
        progress("watching \(rootPath)\(names != nil ? " (its run: \(path ?? ""))" : ""); Ctrl-C to stop")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var printed = 0
        while true {
            let events = watch.events(waitSeconds: 1)
            var lines = feed.lines(events)
            var now = stat()
            let gone = lstat(rootPath, &now) != 0 || now.st_ino != rootStat.st_ino
            if gone && !lines.contains(where: { $0.area == "watch" && $0.change.contains("removed") }) {
                lines += feed.lines([TreeWatch.Event(kind: .rootGone, path: "", isDirectory: true)])
            }
            for line in lines where filters.isEmpty || filters.contains(where: { line.area.contains($0) || line.subject.contains($0) || line.file.contains($0) }) {
                if json {
                    print(String(decoding: try encoder.encode(line), as: UTF8.self))
                } else {
                    print(line.text)
                }
                fflush(HarnessExit.standardOutputStream)
                printed += 1
                if let count, printed >= count { return }
            }
            if gone { return }
            if let stopAt, Self.wallNow() >= stopAt { return }
        }
    }

    static func wallNow() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// The device root to watch, and the run's names for pids when a run directory was given.
    func resolve() throws -> (String, WriterNames?) {
        guard let path else { return (try root.path(mustExist: true), nil) }
        guard !path.isEmpty else { throw InputError("the path is empty: pass a run directory or a device root") }
        if root.deviceRoot != nil { throw InputError("give either a path or --device-root, not both") }
        var st = stat()
        guard lstat(path, &st) == 0 else { throw InputError("\(path): no such run directory or device root") }
        if st.st_mode & S_IFMT == S_IFLNK { throw InputError("\(path) is a symlink; pass the directory itself") }
        guard st.st_mode & S_IFMT == S_IFDIR else { throw InputError("\(path) is not a directory (a run directory or a device root)") }
        let fm = FileManager.default
        let isRun = ["trace", "history.jsonl", "scenario.yaml"].contains { fm.fileExists(atPath: path + "/" + $0) }
        guard isRun else {
            let entries = (try? fm.contentsOfDirectory(atPath: path)) ?? []
            guard entries.isEmpty || entries.contains(where: DeviceRootOptions.layout.contains) else {
                throw InputError("\(path) is neither a run directory nor a device root: it holds none of history.jsonl, trace, \(DeviceRootOptions.layout.sorted().joined(separator: ", "))")
            }
            return (path, nil)
        }
        let deadline = Self.wallNow() + Self.runStartSeconds
        while true {
            for file in ["/trace/harness.jsonl", "/history.jsonl"] {
                guard let data = fm.contents(atPath: path + file) else { continue }
                let started = HistoryEvent.parse(jsonl: data).events.first { $0.event == "run_started" && $0.process == "harness" }
                guard let deviceRoot = started?["deviceRoot"] else { continue }
                guard fm.fileExists(atPath: deviceRoot) else {
                    throw InputError("the run in \(path) has ended: its device root \(deviceRoot) is gone (`harness report \(path)` shows what it left)")
                }
                return (deviceRoot, WriterNames(runDirectory: path))
            }
            if Self.wallNow() > deadline {
                throw InputError("\(path) has no run_started line naming its device root after \(Int(Self.runStartSeconds)) s: not a run that started (pass a device root instead)")
            }
            usleep(50_000)
        }
    }
}
