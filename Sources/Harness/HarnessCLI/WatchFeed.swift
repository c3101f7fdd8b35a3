import AppGroup
import Foundation
import HarnessKit
import History
import TreeWatch

#if canImport(Glibc)
import Glibc
#endif

/// What `harness watch` prints: each change of a device root in the system's terms — a Darwin
/// notification posted or its state set, an App Group suite's keys that changed, a ManagedSettings
/// store or a DeviceActivity registration that changed, a heartbeat, a quarantine — with the device
/// time it was seen at and, where the file's temp name tells it (PROTOCOL.md §1: every writer
/// renames `.tmp.<pid>.…` into place), the writer's pid, named by the run's history when there is
/// one. An observer only: it reads files, never locks or writes one.
final class WatchFeed {
    struct Line: Encodable, Equatable {
        /// Device time (unix seconds) when the change was seen.
        var t: Double
        var time: String
        /// notify, defaults, managedsettings, deviceactivity, authorization, notifications, system,
        /// heartbeat, quarantine, file, watch.
        var area: String
        /// The notification name, suite, store, activity, writer, or file.
        var subject: String
        /// Relative to the device root.
        var file: String
        var change: String
        var writerPid: Int32?
        var writer: String?

        var text: String {
            let by = writerPid.map { pid in " [\(writer.map { "\($0), " } ?? "")pid \(pid)]" } ?? ""
            return "\(time)  \(area.padding(toLength: 15, withPad: " ", startingAt: 0)) \(WatchFeed.safe(subject))  \(WatchFeed.safe(change))\(by)"
        }
    }

    let root: DeviceRoot
    let clock: DeviceClock
    /// Who each pid was, from the run's history (nil: a bare device root).
    let names: WriterNames?
    /// What each decoded file held when last seen, to say what changed.
    private var suites: [String: [String: PropertyListValue]] = [:]
    private var records: [String: NotifyRecord] = [:]
    private var systemRecords: [String: [String: String]] = [:]
    /// A temp's writer, by the cookie that pairs its rename's two events.
    private var writers: [UInt32: Int32] = [:]
    private var quarantineBytes = 0

    /// Longest value shown whole in a change.
    static let valueLimit = 80
    static let maxChangesShown = 8

    init(root: DeviceRoot, names: WriterNames?) {
        self.root = root
        self.clock = DeviceClock(deviceRoot: root)
        self.names = names
        quarantineBytes = Int((try? root.directory.statEntry(DeviceRoot.quarantineFileName))?.st_size ?? 0)
        snapshot()
    }

    /// What every decoded file holds now, so the first change of each is said as a difference.
    private func snapshot() {
        var budget = 50_000
        func walk(_ relative: String, _ depth: Int) {
            guard depth < 8, let dir = try? root.subdirectory(relative, create: false), let names = try? dir.entries(limit: budget) else { return }
            for name in names where !name.hasPrefix(".") {
                budget -= 1
                guard budget > 0 else { return }
                let path = relative + "/" + name
                var st = stat()
                guard fstatat(dir.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                if st.st_mode & S_IFMT == S_IFDIR {
                    walk(path, depth + 1)
                } else if st.st_mode & S_IFMT == S_IFREG {
                    _ = decode(path)
                }
            }
        }
        for top in ["notify", "containers", "sandboxes", "system"] { walk(top, 0) }
    }

    func lines(_ events: [TreeWatch.Event]) -> [Line] {
        var out: [Line] = []
        for e in events {
            switch e.kind {
            case .movedOut:
                if let pid = Self.writerPid(temp: WatchFeed.lastComponent(e.path)) { writers[e.cookie] = pid }
                if writers.count > 4096 { writers = [:] }
            case .movedIn, .written:
                let pid = e.kind == .movedIn ? writers.removeValue(forKey: e.cookie) : nil
                if let line = changed(e.path, pid: pid) { out.append(line) }
            case .created:
                if let line = made(e.path) {
                    out.append(line)
                } else if e.found, !e.isDirectory, let line = changed(e.path, pid: nil) {
                    // In a directory made faster than the watch followed it: said as found.
                    out.append(line)
                }
            case .deleted:
                guard !e.path.isEmpty, !Self.unsaid(e.path) else { continue }
                suites[e.path] = nil
                records[e.path] = nil
                systemRecords[e.path] = nil
                out.append(line(area(of: e.path).area, area(of: e.path).subject, e.path, e.isDirectory ? "directory removed" : "removed", pid: nil))
            case .lost:
                out.append(line("watch", "", "", "\(e.reason ?? "events were lost"): changes may be missing until the next of each file", pid: nil))
                snapshot()
            case .rootGone:
                out.append(line("watch", "", "", "the device root was removed (the run ended)", pid: nil))
            }
        }
        return out
    }

    /// `.tmp.<pid>.<counter>.[<tag>.]<final>`: the writer's pid.
    static func writerPid(temp name: String) -> Int32? {
        guard name.hasPrefix(".tmp.") else { return nil }
        let parts = name.split(separator: ".", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        return Int32(parts[2])
    }

    private func line(_ area: String, _ subject: String, _ file: String, _ change: String, pid: Int32?) -> Line {
        let t = clock.nowUnixSeconds()
        return Line(
            t: (t * 1000).rounded() / 1000, time: Self.format(t, clock.timeZone), area: area, subject: subject, file: file, change: change,
            writerPid: pid, writer: pid.flatMap { names?.name(of: $0) })
    }

    static func format(_ t: Double, _ zone: TimeZone) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = zone
        f.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        return f.string(from: Date(timeIntervalSince1970: t))
    }

    /// A file made in place: said when it is of a kind no participant makes, or the app's own.
    private func made(_ path: String) -> Line? {
        let name = WatchFeed.lastComponent(path)
        guard !path.isEmpty, let (parent, dirName) = split(path), let dir = try? root.subdirectory(parent, create: false) else { return nil }
        var st = stat()
        guard fstatat(dir.fd, dirName, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFREG, S_IFDIR: return nil  // said when written (closed or renamed in)
        case S_IFIFO where DeviceRootTamper.isProtocolFifo(path): return nil
        default:
            _ = name
            let a = area(of: path)
            return line(a.area, a.subject, path, "\(DeviceRootTamper.kind(st.st_mode)) appeared (no participant makes one)", pid: nil)
        }
    }

    private func split(_ path: String) -> (String, String)? {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        return (String(path[..<slash]), String(path[path.index(after: slash)...]))
    }

    /// The area and subject of a path, in the system's terms.
    func area(of path: String) -> (area: String, subject: String) {
        let p = path.split(separator: "/").map(String.init)
        guard let top = p.first else { return ("watch", "") }
        switch top {
        case "notify": return ("notify", p.count == 2 ? p[1] : path)
        case "containers" where p.count == 5 && p[2] == "Library" && p[3] == "Preferences" && p[4].hasSuffix(".plist"):
            let suite = String(p[4].dropLast(".plist".count))
            return ("defaults", suite == p[1] ? suite : "\(p[1]) \(suite)")
        case "sandboxes" where p.count == 5 && p[2] == "Library" && p[3] == "Preferences" && p[4].hasSuffix(".plist"):
            let suite = String(p[4].dropLast(".plist".count))
            return ("defaults", "\(p[1])'s \(suite == "standard" ? "UserDefaults.standard" : suite)")
        case "containers" where p.count == 4 && p[2] == "Heartbeats": return ("heartbeat", String(p[3].dropLast(p[3].hasSuffix(".json") ? 5 : 0)))
        case "system" where p.count >= 3:
            let rest = p[2...].joined(separator: "/")
            let bare = rest.hasSuffix(".json") ? String(rest.dropLast(5)) : rest
            switch p[1] {
            case "managedsettings": return ("managedsettings", "store \(bare)")
            case "deviceactivity": return ("deviceactivity", "activity \(bare)")
            case "authorization": return ("authorization", bare)
            case "notifications": return ("notifications", bare)
            default: return ("system", p[1...].joined(separator: "/"))
            }
        case DeviceRoot.quarantineFileName: return ("quarantine", "")
        default: return ("file", path)
        }
    }

    /// A file renamed into place or closed after a write: what it holds now, beside what it held.
    /// Files whose changes say nothing about the system: dot names (temps, the notify lock), lock
    /// files (written when taken), the clock (every step), the protocol's FIFOs.
    static func unsaid(_ path: String) -> Bool {
        let name = lastComponent(path)
        return name.hasPrefix(".") || name.hasSuffix(".lock") || path == DeviceClock.fileName || DeviceRootTamper.isProtocolFifo(path)
    }

    private func changed(_ path: String, pid: Int32?) -> Line? {
        guard !Self.unsaid(path) else { return nil }
        if path == DeviceRoot.quarantineFileName { return quarantined() }
        let a = area(of: path)
        guard let change = decode(path) else { return nil }
        return line(a.area, a.subject, path, change, pid: pid)
    }

    /// New quarantine records: the file each moved aside, and why.
    private func quarantined() -> Line? {
        guard let st = try? root.directory.statEntry(DeviceRoot.quarantineFileName), Int(st.st_size) > quarantineBytes else { return nil }
        let all = root.quarantineRecords()
        quarantineBytes = Int(st.st_size)
        guard let last = all.last, let obj = (try? JSONSerialization.jsonObject(with: Data(last.utf8))) as? [String: Any] else { return nil }
        let file = obj["file"] as? String ?? "?"
        let pid = (obj["pid"] as? Int).map { Int32($0) }
        return line("quarantine", file, DeviceRoot.quarantineFileName, Excerpt.inner(obj["reason"] as? String ?? "?", limit: 160), pid: pid)
    }

    /// What changed in `path` since it was last decoded (nil: nothing to say).
    private func decode(_ path: String) -> String? {
        guard let (parent, name) = split(path), let dir = try? root.subdirectory(parent, create: false) else { return nil }
        let a = area(of: path)
        switch a.area {
        case "notify":
            switch try? DarwinNotificationCenter.readRecordFile(name, in: dir) {
            case .record(let r)?:
                defer { records[path] = r }
                guard let was = records[path] else { return "posted, generation \(r.generation), state \(r.state)" }
                if r == was { return nil }
                return r.state != was.state ? "state \(was.state) → \(r.state) (generation \(r.generation))" : "posted (generation \(r.generation))"
            case .corrupt(let reason)?: return "not a notify record (\(reason))"
            default: return nil
            }
        case "defaults":
            guard let bytes = try? dir.readFile(name, limitBytes: SharedDefaults.maxSuiteBytes) else { return nil }
            guard let decoded = try? PropertyListCodec.decodeDictionaryKeepingGoodKeys(bytes) else {
                suites[path] = nil
                return "not a property list (\(bytes.count) bytes)"
            }
            let was = suites[path]
            suites[path] = decoded.values
            let flat = decoded.values.mapValues { DefaultsText.json($0) }
            let change = Self.diff(was?.mapValues { DefaultsText.json($0) }, flat)
            let bad = decoded.badKeys.map { "key \(String(reflecting: $0.key)) left out: \($0.reason)" }
            return change.map { ([$0] + bad).joined(separator: "; ") } ?? (bad.isEmpty ? nil : bad.joined(separator: "; "))
        case "heartbeat":
            guard let bytes = try? dir.readSmallFile(name, maxBytes: HeartbeatRecord.maxFileBytes) else { return nil }
            guard let r = try? HeartbeatRecord.decode(bytes, fileName: name) else { return "not a heartbeat record" }
            return "beat \(r.sequence) (launch \(r.launchId.prefix(8)), every \(Self.number(r.intervalSeconds)) s)"
        case "managedsettings", "deviceactivity", "authorization", "notifications", "system":
            guard path.hasSuffix(".json"), let bytes = try? dir.readFile(name, limitBytes: 1 << 20) else { return nil }
            guard let obj = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
                systemRecords[path] = nil
                return "not JSON (\(bytes.count) bytes)"
            }
            var flat: [String: String] = [:]
            Self.flatten(obj, "", into: &flat)
            let was = systemRecords[path]
            systemRecords[path] = flat
            return Self.diff(was, flat)
        default:
            guard let st = try? dir.statEntry(name), st.st_mode & S_IFMT == S_IFREG else { return nil }
            return "written (\(st.st_size) bytes)"
        }
    }

    /// `a.b.c` → the value as compact JSON; arrays whole.
    static func flatten(_ value: Any, _ prefix: String, into out: inout [String: String]) {
        if let d = value as? [String: Any], !d.isEmpty {
            for (k, v) in d { flatten(v, prefix.isEmpty ? k : prefix + "." + k, into: &out) }
            return
        }
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        out[prefix.isEmpty ? "(value)" : prefix] = String(decoding: data, as: UTF8.self)
    }

    /// "k = v" for each key added, "k: old → new" changed, "k removed"; nil when nothing changed.
    static func diff(_ was: [String: String]?, _ now: [String: String]) -> String? {
        guard let was else {
            if now.isEmpty { return "empty" }
            return limited(now.keys.sorted().map { "\($0) = \(short(now[$0]!))" })
        }
        var parts: [String] = []
        for k in Set(was.keys).union(now.keys).sorted() {
            switch (was[k], now[k]) {
            case (nil, let v?): parts.append("\(k) = \(short(v))")
            case (_?, nil): parts.append("\(k) removed")
            case (let a?, let b?) where a != b: parts.append("\(k): \(short(a)) → \(short(b))")
            default: continue
            }
        }
        return parts.isEmpty ? nil : limited(parts)
    }

    static func limited(_ parts: [String]) -> String {
        guard parts.count > maxChangesShown else { return parts.joined(separator: "; ") }
        return parts.prefix(maxChangesShown).joined(separator: "; ") + "; and \(parts.count - maxChangesShown) more"
    }

    /// Values are JSON already (control characters escaped): only cut.
    static func short(_ v: String) -> String {
        v.count > valueLimit ? String(v.prefix(valueLimit)) + "…" : v
    }

    /// A name from the file system as a terminal may show it: control characters and escapes as
    /// `\u{…}` (a file named by someone outside the run could hold any byte but `/` and NUL).
    static func safe(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || (0x80..<0xA0).contains($0.value) }) else { return s }
        return String(s.unicodeScalars.map { c -> String in
            c.value < 0x20 || c.value == 0x7F || (0x80..<0xA0).contains(c.value) ? "\\u{\(String(c.value, radix: 16))}" : String(c)
        }.joined())
    }

    static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    static func number(_ d: Double) -> String { d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d) }
}

/// Who each pid of a run was: every trace line names its process and pid (each process appends to
/// its own `trace/<process>.jsonl` at once), and the harness's `spawn` lines the child it started
/// (`target`, `childPid`). Read as the run directory grows, from where it was left.
final class WriterNames {
    let traceDirectory: String
    private var offsets: [String: Int] = [:]
    private var byPid: [Int32: String] = [:]

    init(runDirectory: String) {
        traceDirectory = runDirectory + "/trace"
    }

    func name(of pid: Int32) -> String? {
        if let n = byPid[pid] { return n }
        refresh()
        if let n = byPid[pid] { return n }
        // A process that wrote before its first trace line: its role is in its environment
        // while it lives (StandInEnvironment.processVariable).
        guard let env = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return nil }
        let prefix = StandInEnvironment.processVariable + "="
        for entry in env.split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            if text.hasPrefix(prefix), !text.dropFirst(prefix.count).isEmpty {
                byPid[pid] = String(text.dropFirst(prefix.count))
                return byPid[pid]
            }
        }
        return nil
    }

    func refresh() {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: traceDirectory)) ?? []).filter { $0.hasSuffix(".jsonl") }
        for name in files.sorted() {
            let file = traceDirectory + "/" + name
            guard let h = FileHandle(forReadingAtPath: file) else { continue }
            defer { try? h.close() }
            let from = offsets[file] ?? 0
            guard (try? h.seek(toOffset: UInt64(from))) != nil, let data = try? h.read(upToCount: 64 << 20), !data.isEmpty else { continue }
            // Whole lines only: a line being written is read next time.
            guard let lastNewline = data.lastIndex(of: UInt8(ascii: "\n")) else { continue }
            let whole = data[data.startIndex...lastNewline]
            offsets[file] = from + whole.count
            for e in HistoryEvent.parse(jsonl: Data(whole)).events {
                if e.pid > 0 { byPid[e.pid] = e.process }
                if e.event == "spawn", let target = e["target"], let child = e["childPid"].flatMap({ Int32($0) }) { byPid[child] = target }
            }
        }
    }
}
