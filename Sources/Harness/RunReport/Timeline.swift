import Foundation
import History

/// The timeline of one run, laid out: one lane per process on the device-time axis, with its
/// lifetimes (alive, stopped, suspended by iOS) as bands and every history line as a marker.
/// Pure: a `RunRecord` in, geometry out; the page's template only prints it.
///
/// Lanes come from the `process` field. The harness records what it does to a process (spawn,
/// exit, signal, a fault armed) with that process in `target`, and the calls it makes into an
/// extension with the extension's `childPid`: those lines go on the target's lane, so a lane shows
/// the whole life of its process.
///
/// Size bound: a series of one event on one lane with more than `maxMarkersPerSeries` lines (a
/// server's heartbeats over 24 device hours) is drawn as at most `binsPerSeries` bins — each one
/// band with its count and first/last line numbers — except the lines a violation cites, which
/// always stay single markers. Everything else is one marker per line — unless the page would
/// still carry more than `markerBudget` markers (many busy series), when the longest remaining
/// series are binned too, longest first, until it does not. So a page holds at most about
/// `markerBudget` markers + `binsPerSeries` bins per series + the cited lines (~400 bytes each).
public struct Timeline: Sendable {
    public static let maxMarkersPerSeries = 300
    public static let markerBudget = 12_000
    public static let binsPerSeries = 200
    /// Fields longer than this are cut in tooltips (the line itself is in history.jsonl).
    public static let maxFieldCharacters = 160

    public struct Span: Sendable {
        public enum Kind: String, Sendable { case alive, stopped, suspended, seen }
        public var kind: Kind
        public var from: Double
        public var to: Double
        public var title: String
    }

    public struct Marker: Sendable {
        public var line: Int
        public var t: Double
        public var event: String
        public var family: EventFamily
        public var title: String
        /// 1-based indexes of the violations that cite this line.
        public var violations: [Int]
        /// 1-based indexes of the violations this line is a proven cause of (why.json).
        public var provenCauseOf: [Int] = []
    }

    public struct Bin: Sendable {
        public var event: String
        public var family: EventFamily
        public var from: Double
        public var to: Double
        public var count: Int
        public var firstLine: Int
        public var lastLine: Int
    }

    public struct Lane: Sendable {
        public var name: String
        public var spans: [Span] = []
        public var markers: [Marker] = []
        public var bins: [Bin] = []
        public var lineCount = 0
        /// Lines drawn in bins rather than one by one.
        public var binnedLines = 0
    }

    public struct ViolationMark: Sendable {
        public var index: Int
        public var invariant: String
        public var explanation: String
        public var subject: String?
        /// The cited lines with their line numbers in history.jsonl (nil: not in this history).
        public var cited: [(line: Int?, text: String)]
        /// Proven causes (why.json): each with its history.jsonl line when found; needed-together
        /// causes joined by "and".
        public var proven: [(line: Int?, text: String)] = []
        /// What the reruns left open, or why nothing could be proven; nil when not explained.
        public var provenNote: String?
        public var from: Double
        public var to: Double
    }

    public var start: Double
    public var end: Double
    public var lanes: [Lane]
    public var violations: [ViolationMark]

    public init(_ record: RunRecord) {
        let lines = record.lines
        let start = lines.map(\.event.t).min() ?? 0
        let end = max(lines.map(\.event.t).max() ?? 0, start + 1)
        self.start = start
        self.end = end

        // Which violation cites which line: matched on (mono, pid, event), as report.json copies them.
        var lineOf: [String: Int] = [:]
        for l in lines { lineOf[Self.key(l.event)] = l.number }
        var citedBy: [Int: [Int]] = [:]
        var provenBy: [Int: [Int]] = [:]
        var marks: [ViolationMark] = []
        for (i, v) in (record.verdicts?.violations ?? []).enumerated() {
            var cited: [(Int?, String)] = []
            for e in v.relevantEvents {
                let n = lineOf[Self.key(e)]
                if let n { citedBy[n, default: []].append(i + 1) }
                cited.append((n, e.jsonLine()))
            }
            // With its cause chain: the disturbances before it, then the rule's lines, in short.
            if let chain = v.chain, !chain.isEmpty {
                cited = chain.map { ($0.line, ($0.role == "cause" ? "cause  " : "       ") + $0.text) }
            }
            let ts = v.relevantEvents.map(\.t)
            var mark = ViolationMark(
                index: i + 1, invariant: v.invariant, explanation: v.explanation, subject: v.subject.map { "\($0.kind) \($0.id)" }, cited: cited,
                from: ts.min() ?? end, to: ts.max() ?? end)
            if let p = record.proven[i + 1] {
                func text(_ c: RunRecord.Proven.Cause) -> String {
                    c.step + (c.interrupted.map { " — \($0)" } ?? "") + (c.afterEvidence == true ? " (after the last line the checker cites)" : "")
                }
                mark.proven = p.proven.map { ($0.line, text($0)) }
                    + (p.together ?? []).flatMap { pair in pair.enumerated().map { ($0.element.line, ($0.offset == 0 ? "" : "and ") + text($0.element)) } }
                for c in p.proven + (p.together ?? []).flatMap({ $0 }) { if let n = c.line { provenBy[n, default: []].append(i + 1) } }
                let open = (p.untried?.count ?? 0) + (p.undecided?.count ?? 0) + (p.disagreed?.count ?? 0)
                mark.provenNote = p.unprovable.map { "causes not proven: \($0)" }
                    ?? (mark.proven.isEmpty && open == 0 ? "no step left out made it go away (it may come from the seed alone)" : nil)
                    ?? (open > 0 ? "\(open) candidate step(s) not proven (\(p.limit ?? "the budget") ran out): harness why \(record.name) --violation \(i + 1)" : nil)
            }
            marks.append(mark)
        }
        let violationMarks = marks

        // Lanes: the harness's own first, then in order of first appearance.
        var order: [String] = []
        var lanes: [String: Lane] = [:]
        // A call into an extension names the extension's pid (`childPid`): the extension's own lines
        // carry that pid. A call iOS dropped or held names no pid, only the callback: it goes where
        // that callback ran (learned from the calls that did run).
        var pidLane: [String: String] = [:]
        for l in lines {
            let e = l.event
            if e.process != "harness" { pidLane[String(e.pid)] = e.process }
            if e.process == "harness", e.event == "spawn", let pid = e["childPid"], let target = e["target"] { pidLane[pid] = target }
        }
        var callbackLane: [String: String] = [:]
        for l in lines where l.event.process == "harness" && l.event.event.hasPrefix("callback_") {
            if let pid = l.event["childPid"], let lane = pidLane[pid], let cb = l.event["callback"], callbackLane[cb] == nil { callbackLane[cb] = lane }
        }
        func laneName(_ e: HistoryEvent) -> String {
            if e.process == "harness" {
                if let target = e["target"], !target.isEmpty, target != "-" { return target }
                if e.event.hasPrefix("callback_") {
                    if let pid = e["childPid"], let lane = pidLane[pid] { return lane }
                    if let cb = e["callback"], let lane = callbackLane[cb] { return lane }
                }
            }
            return e.process
        }
        var grouped: [String: [String: [RunRecord.Line]]] = [:]
        for l in lines {
            let e = l.event
            let name = laneName(e)
            if lanes[name] == nil {
                lanes[name] = Lane(name: name)
                order.append(name)
            }
            lanes[name]!.lineCount += 1
            grouped[name, default: [:]][e.event, default: []].append(l)
        }
        order = order.filter { $0 == "harness" } + order.filter { $0 != "harness" }

        // Which series are binned: every long one, then the longest others while over budget.
        var thinned = Set<String>()
        var sizes: [(key: String, count: Int)] = []
        for (name, byEvent) in grouped { for (event, series) in byEvent { sizes.append(("\(name)\u{0}\(event)", series.count)) } }
        sizes.sort { ($0.count, $0.key) > ($1.count, $1.key) }
        var drawn = sizes.reduce(0) { $0 + $1.count }
        for s in sizes where s.count > Self.maxMarkersPerSeries || drawn > Self.markerBudget {
            thinned.insert(s.key)
            drawn -= s.count - min(s.count, Self.binsPerSeries)
        }

        for name in order {
            var lane = lanes[name]!
            for (event, series) in grouped[name]!.sorted(by: { $0.key < $1.key }) {
                let thin = thinned.contains("\(name)\u{0}\(event)")
                var binned: [Int: Bin] = [:]
                for l in series {
                    let cites = citedBy[l.number] ?? []
                    let causes = provenBy[l.number] ?? []
                    if thin && cites.isEmpty && causes.isEmpty {
                        let width = (end - start) / Double(Self.binsPerSeries)
                        let b = min(Self.binsPerSeries - 1, Int((l.event.t - start) / width))
                        if binned[b] == nil {
                            binned[b] = Bin(
                                event: event, family: EventFamily.of(event), from: start + Double(b) * width, to: start + Double(b + 1) * width, count: 0,
                                firstLine: l.number, lastLine: l.number)
                        }
                        binned[b]!.count += 1
                        binned[b]!.lastLine = l.number
                        lane.binnedLines += 1
                        continue
                    }
                    lane.markers.append(Marker(
                        line: l.number, t: l.event.t, event: event, family: EventFamily.of(event, fields: l.event.fields),
                        title: title(l) + (causes.isEmpty ? "" : " — proven cause of " + causes.map { "V\($0)" }.joined(separator: ", ")),
                        violations: cites, provenCauseOf: causes))
                }
                lane.bins += binned.keys.sorted().map { binned[$0]! }
            }
            lane.markers.sort { ($0.t, $0.line) < ($1.t, $1.line) }
            lane.spans = Self.lifetimes(of: name, lines: lines.filter { laneName($0.event) == name }, start: start, end: end)
            lanes[name] = lane
        }
        self.lanes = order.map { lanes[$0]! }
        violations = violationMarks

        func title(_ l: RunRecord.Line) -> String {
            let e = l.event
            var s = "history.jsonl:\(l.number)  \(DeviceTimeText.offset(e.t - start))  \(e.process) · \(e.event)"
            for k in e.fields.keys.sorted() {
                var v = e.fields[k]!
                if v.count > Self.maxFieldCharacters { v = String(v.prefix(Self.maxFieldCharacters)) + "…" }
                s += "\n\(k)=\(v)"
            }
            return s
        }
    }

    static func key(_ e: HistoryEvent) -> String { "\(e.mono)|\(e.pid)|\(e.event)" }

    /// Alive from `spawn` to `exit`, or for an extension from a call delivered (or started) to
    /// completed (or failed), per `childPid`; stopped from a STOP signal to CONT, exit or the end
    /// (by iOS: suspended). A lane with none of these (the harness itself) is drawn as seen from
    /// its first line to its last.
    static func lifetimes(of lane: String, lines: [RunRecord.Line], start: Double, end: Double) -> [Span] {
        var spans: [Span] = []
        var aliveSince: Double?
        var stopped: (since: Double, byIOS: Bool)?
        var sawLifetime = false
        var calls: [String: Double] = [:]
        func closeStop(_ t: Double, _ why: String) {
            guard let s = stopped else { return }
            spans.append(Span(
                kind: s.byIOS ? .suspended : .stopped, from: s.since, to: t,
                title: "\(lane) \(s.byIOS ? "suspended by iOS" : "stopped (SIGSTOP)") \(DeviceTimeText.offset(s.since - start)) – \(DeviceTimeText.offset(t - start)) (\(why))"))
            stopped = nil
        }
        for l in lines where l.event.process == "harness" {
            let e = l.event
            switch e.event {
            case "spawn":
                sawLifetime = true
                aliveSince = e.t
            case "exit":
                sawLifetime = true
                closeStop(e.t, "exit")
                let from = aliveSince ?? start
                spans.append(Span(
                    kind: .alive, from: from, to: e.t,
                    title: "\(lane) pid \(e["childPid"] ?? "?") alive \(DeviceTimeText.offset(from - start)) – \(DeviceTimeText.offset(e.t - start)), \(e["status"] ?? "exited")"))
                aliveSince = nil
            case "callback_delivered", "callback_started":
                if let pid = e["childPid"], pid != "-" {
                    sawLifetime = true
                    if calls[pid] == nil { calls[pid] = e.t }
                }
            case "callback_completed", "callback_failed":
                if let pid = e["childPid"], let since = calls.removeValue(forKey: pid) {
                    spans.append(Span(
                        kind: .alive, from: since, to: max(e.t, since),
                        title: "\(lane) pid \(pid): \(e["callback"] ?? "a call") \(DeviceTimeText.offset(since - start)) – \(DeviceTimeText.offset(e.t - start)), \(e["status"] ?? e.event)"))
                }
            case "signal":
                if e["signal"] == "STOP" { stopped = (e.t, e["by"] == "ios") } else if e["signal"] == "CONT" { closeStop(e.t, "continued") }
            default: break
            }
        }
        closeStop(end, "end of run")
        for (pid, since) in calls.sorted(by: { $0.value < $1.value }) {
            spans.append(Span(kind: .alive, from: since, to: end, title: "\(lane) pid \(pid): a call from \(DeviceTimeText.offset(since - start)) never completed"))
        }
        if let since = aliveSince {
            spans.append(Span(kind: .alive, from: since, to: end, title: "\(lane) alive from \(DeviceTimeText.offset(since - start)) to the end of the run"))
        }
        if !sawLifetime, let first = lines.first?.event.t, let last = lines.last?.event.t {
            spans.append(Span(kind: .seen, from: first, to: max(last, first), title: "\(lane): lines from \(DeviceTimeText.offset(first - start)) to \(DeviceTimeText.offset(last - start))"))
        }
        // Alive bands under stop bands.
        return spans.sorted { ($0.kind == .alive || $0.kind == .seen ? 0 : 1, $0.from) < ($1.kind == .alive || $1.kind == .seen ? 0 : 1, $1.from) }
    }
}

/// Device time as people read it on a timeline: an offset from the run's first line.
public enum DeviceTimeText {
    public static func offset(_ seconds: Double) -> String {
        let s = max(0, seconds)
        let whole = Int(s)
        let d = whole / 86400, h = (whole % 86400) / 3600, m = (whole % 3600) / 60
        let sec = s - Double(whole - whole % 60)
        let secText = String(format: sec.truncatingRemainder(dividingBy: 1) == 0 ? "%02.0f" : "%06.3f", sec)
        return d > 0 ? String(format: "+%dd%02d:%02d:", d, h, m) + secText : String(format: "+%02d:%02d:", h, m) + secText
    }

    /// A duration in words: "3 h 45 min", "90 s".
    public static func duration(_ seconds: Double) -> String {
        if seconds >= 3600 { return String(format: "%.0f h %02.0f min", (seconds / 3600).rounded(.down), (seconds.truncatingRemainder(dividingBy: 3600) / 60).rounded(.down)) }
        if seconds >= 60 { return String(format: "%.0f min", (seconds / 60).rounded(.down)) }
        return String(format: "%.0f s", seconds)
    }
}
