import AppGroup
import Foundation
import History
import Mustache

#if canImport(Glibc)
import Glibc
#endif

/// `report.html` of one run: a self-contained page (no network; opens from disk) with the run's
/// verdict, the command that reruns it, a timeline (one lane per process on the device-time axis,
/// zoom and pan), every violation with the history lines that prove it, and a histogram per
/// latency series. Built from `history.jsonl` (+ `report.json`'s verdicts) through Mustache
/// templates (`ReportTemplates`); the SVG geometry is computed here (`Timeline`,
/// `LatencyHistogram`).
public enum RunReportPage {
    public static let fileName = "report.html"

    /// SVG layout, in px.
    static let labelWidth = 190.0, plotWidth = 1380.0, axisHeight = 26.0, laneHeight = 46.0, markerWidth = 3.0, markerHeight = 10.0

    /// Writes `RUN_DIR/report.html` and returns its path.
    @discardableResult
    public static func write(runDirectory dir: String) throws(RunReportError) -> String {
        let record = try RunRecord.load(runDirectory: dir)
        let path = dir + "/" + fileName
        try ReportFile.write(render(record), to: path)
        return path
    }

    /// The same from `events`, the lines of the run's history.jsonl just written (not read back).
    @discardableResult
    public static func write(runDirectory dir: String, events: [HistoryEvent]) throws(RunReportError) -> String {
        let record = try RunRecord(
            name: (dir as NSString).lastPathComponent, events: events, report: FileManager.default.contents(atPath: dir + "/report.json"))
        let path = dir + "/" + fileName
        try ReportFile.write(render(record), to: path)
        return path
    }

    public static func render(_ record: RunRecord) -> String {
        ReportTemplates.render(ReportTemplates.page, context(record))
    }

    static func f(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    /// What the template does to a value it writes with `{{name}}` (Mustache's `htmlEscape`, one
    /// Character at a time, so a quote a combining mark follows stays as it is, as there).
    static func htmlEscape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x3C || $0 == 0x3E || $0 == 0x26 || $0 == 0x22 || $0 == 0x27 }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for c in text {
            switch c {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    /// `String(format: "%.3f", seconds)` without Foundation's formatter (once per marker). Where
    /// the product by 1000 lies within a few ulps of a half — a tie the product's own rounding
    /// could have made — the formatter decides.
    static func millis(_ seconds: Double) -> String {
        let p = seconds * 1000
        guard seconds.isFinite, abs(seconds) < 9e12, abs(abs(p - p.rounded(.down)) - 0.5) > 4 * p.ulp else { return String(format: "%.3f", seconds) }
        let m = Int64(p.rounded())
        let whole = m.magnitude / 1000, frac = m.magnitude % 1000
        let digits = String(frac)
        return (seconds.sign == .minus ? "-" : "") + String(whole) + "." + String(repeating: "0", count: 3 - digits.count) + digits
    }

    static func context(_ record: RunRecord) -> [String: Any] {
        let tl = Timeline(record)
        let span = tl.end - tl.start
        func x(_ t: Double) -> Double { labelWidth + (t - tl.start) / span * plotWidth }
        func rel(_ t: Double) -> String { millis(t - tl.start) }
        var lanes: [[String: Any]] = []
        for (i, lane) in tl.lanes.enumerated() {
            let y = axisHeight + Double(i) * laneHeight
            let spans: [[String: Any]] = lane.spans.map { s in
                let (top, h) = s.kind == .alive || s.kind == .seen ? (y + 3, laneHeight - 6) : (y + laneHeight - 12, 8.0)
                return [
                    "x": f(x(s.from)), "w": f(max(1, x(s.to) - x(s.from))), "y": f(top), "h": f(h), "kind": s.kind.rawValue,
                    "t1": rel(s.from), "t2": rel(s.to), "title": s.title,
                ]
            }
            // The markers (most of a long run's page) are written here, escaped as the template
            // would: rendering thousands of them through the template's lookups took 2 % of a 24 h
            // run (RunReportPageTests renders them through the template they replaced, to compare).
            var markers = ""
            markers.reserveCapacity(lane.markers.count * 200)
            for m in lane.markers {
                markers += "<rect class=\"m"
                if !m.violations.isEmpty { markers += " cited " + htmlEscape(m.violations.map { "v\($0)" }.joined(separator: " ")) }
                if !m.provenCauseOf.isEmpty { markers += " proven " + htmlEscape(m.provenCauseOf.map { "v\($0)" }.joined(separator: " ")) }
                // Numbers (digits, '.', '-') need no escaping; the colour and the title do.
                markers += "\" x=\"" + f(x(m.t) - markerWidth / 2) + "\" y=\"" + f(y + 4 + Double(m.family.row) * 11)
                markers += "\" width=\"3\" height=\"10\" fill=\"" + htmlEscape(m.family.colour) + "\" data-t=\"" + rel(m.t)
                markers += "\" data-line=\"" + String(m.line) + "\"><title>" + htmlEscape(m.title) + "</title></rect>\n"
            }
            let bins: [[String: Any]] = lane.bins.map { b in
                [
                    "x": f(x(b.from)), "w": f(max(1, x(b.to) - x(b.from))), "y": f(y + 4 + Double(b.family.row) * 11), "colour": b.family.colour,
                    "t1": rel(b.from), "t2": rel(b.to),
                    "title": "\(b.event) ×\(b.count) (history.jsonl:\(b.firstLine)–\(b.lastLine)) \(DeviceTimeText.offset(b.from - tl.start)) – \(DeviceTimeText.offset(b.to - tl.start))",
                ]
            }
            var note = "\(lane.lineCount) lines"
            if lane.binnedLines > 0 { note += ", \(lane.binnedLines) in bins" }
            lanes.append([
                "name": lane.name, "y": f(y), "labelY": f(y + laneHeight / 2 + 4), "noteY": f(y + laneHeight / 2 + 16), "note": note,
                "stripe": i % 2 == 1, "spans": spans, "markersHTML": markers, "bins": bins, "plotLeft": f(labelWidth), "plotWidth": f(plotWidth),
                "height": f(laneHeight),
            ])
        }
        let svgHeight = axisHeight + Double(tl.lanes.count) * laneHeight + 4
        let labels = Self.markerLabels(tl.violations.map { (index: $0.index, x: x($0.to)) })
        let violations: [[String: Any]] = tl.violations.map { v in
            [
                "index": v.index, "first": v.index == 1, "invariant": v.invariant, "explanation": v.explanation, "subject": v.subject ?? "the run",
                "label": labels[v.index] ?? "",
                "x": f(x(v.to)), "t": rel(v.to), "t1": rel(v.from), "t2": rel(v.to), "top": f(axisHeight - 14), "bottom": f(svgHeight),
                "when": DeviceTimeText.offset(v.to - tl.start),
                "cited": v.cited.map { c in ["line": c.line.map(String.init) ?? "not in this history", "text": c.text, "found": c.line != nil] },
                "hasProven": !v.proven.isEmpty || v.provenNote != nil,
                "proven": v.proven.map { c in ["line": c.line.map(String.init) ?? "", "found": c.line != nil, "text": c.text] },
                "provenNote": v.provenNote ?? "",
            ]
        }
        // Read in ten seconds: which invariants, how many times each, before the list of them all.
        var byInvariant: [(name: String, count: Int)] = []
        for v in tl.violations {
            if let i = byInvariant.firstIndex(where: { $0.name == v.invariant }) { byInvariant[i].count += 1 } else { byInvariant.append((v.invariant, 1)) }
        }
        let binned = tl.lanes.reduce(0) { $0 + $1.binnedLines }
        let markerCount = tl.lanes.reduce(0) { $0 + $1.markers.count }
        let binCount = tl.lanes.reduce(0) { $0 + $1.bins.count }
        let verdicts = record.verdicts
        let verdict = verdicts?.verdict ?? "NOT JUDGED"
        var c: [String: Any] = [
            "title": "\(record.scenario) [\(record.variant)] seed \(record.seed) — \(verdict)",
            "name": record.name, "scenario": record.scenario, "variant": record.variant, "seed": record.seed, "system": record.system,
            "verdict": verdict, "verdictClass": verdict == "PASS" ? "pass" : (verdict == "VIOLATION" ? "fail" : "undecided"),
            "checker": verdicts?.checker ?? "-", "judged": verdicts != nil,
            "undecidedReason": verdicts?.undecidedReason ?? "", "hasUndecidedReason": verdicts?.undecidedReason != nil,
            "lineCount": record.lines.count, "badLines": record.badLineNumbers.map(String.init).joined(separator: ", "),
            "hasBadLines": !record.badLineNumbers.isEmpty,
            "deviceSpan": DeviceTimeText.duration(span),
            "startText": ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: tl.start)),
            "rerun": record.rerunCommand ?? "", "hasRerun": record.rerunCommand != nil,
            "svgWidth": f(labelWidth + plotWidth + 10), "svgHeight": f(svgHeight), "plotLeft": f(labelWidth), "plotWidth": f(plotWidth),
            "axisHeight": f(axisHeight), "span": String(format: "%.3f", span),
            "lanes": lanes, "laneCount": tl.lanes.count,
            "violations": violations, "hasViolations": !violations.isEmpty, "violationCount": violations.count,
            "violatedInvariants": byInvariant.map { ["name": $0.name, "count": $0.count] },
            "drawing": "\(markerCount) markers"
                + (binned > 0
                    ? "; \(binned) lines of series longer than \(Timeline.maxMarkersPerSeries) lines on one lane drawn as \(binCount) bins (counts and line ranges in their tooltips; lines a violation cites stay single markers)"
                    : ""),
            "legend": EventFamily.allCases.map { ["colour": $0.colour, "label": $0.label] },
        ]
        c["results"] = (verdicts?.results ?? []).map { ["name": $0.name, "passed": $0.passed, "checked": $0.checkedCount] }
        c["histograms"] = (verdicts?.latencies ?? []).map { s -> [String: Any] in
            let h = LatencyHistogram(s)
            return [
                "name": h.name, "what": h.what, "summary": h.summary, "width": f(LatencyHistogram.width), "height": f(LatencyHistogram.height),
                "empty": h.bars.isEmpty, "axisY": f(LatencyHistogram.height - LatencyHistogram.bottom), "labelY": f(LatencyHistogram.height - LatencyHistogram.bottom + 14),
                "markTop": f(LatencyHistogram.top - 2), "markLabelY": f(LatencyHistogram.top + 8), "maxCount": h.maxCount,
                "bars": h.bars.map { ["x": f($0.x), "y": f($0.y), "w": f($0.w), "h": f($0.h), "title": $0.title] },
                "ticks": h.ticks.map { ["x": f($0.x), "label": $0.label] },
                "marks": h.marks.map { ["x": f($0.x), "label": $0.label] },
            ]
        }
        c["style"] = ReportTemplates.style
        c["script"] = ReportTemplates.script
        c["hasHistograms"] = !((verdicts?.latencies ?? []).isEmpty)
        c["lost"] = (verdicts?.lostByOS ?? []).map { ["invariant": $0.invariant, "explanation": $0.explanation] }
        // Heartbeat verdicts: each monitor's decisions against the writer's real state.
        func secs(_ v: Double?) -> String { v.map { String(format: $0 >= 100 ? "%.0f" : "%.1f", $0) } ?? "-" }
        let beats = verdicts?.heartbeats ?? []
        c["hasHeartbeats"] = !beats.isEmpty
        c["heartbeats"] = beats.map { h -> [String: Any] in
            let states = (h.falseAlarmStates ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let shown = (h.findings ?? []).prefix(Self.maxHeartbeatFindings)
            return [
                "monitor": h.monitor, "writer": h.writer, "rule": h.rule, "decisions": h.decisions, "trueAlarms": h.trueAlarms,
                "falseAlarms": h.falseAlarms, "states": states.isEmpty ? "" : " (\(states))", "deaths": h.deaths, "detected": h.detected,
                "missed": h.missed, "p50": secs(h.detectionLatencyP50Seconds), "p99": secs(h.detectionLatencyP99Seconds),
                "findings": shown.map { f in
                    [
                        "kind": f.kind, "bad": f.kind != "true-alarm", "when": DeviceTimeText.offset(f.t - tl.start),
                        "subject": f.subject ?? "", "state": f.writerState, "detail": f.detail,
                        "latency": f.latencySeconds.map { " — detected after \(secs($0)) s" } ?? "",
                    ] as [String: Any]
                },
                "more": max(0, (h.findings?.count ?? 0) - shown.count) + (h.findingsOmitted ?? 0),
                "hasMore": (h.findings?.count ?? 0) > shown.count || (h.findingsOmitted ?? 0) > 0,
            ]
        }
        return c
    }
}

extension RunReportPage {
    /// Findings listed per heartbeat monitor (false alarms and missed deaths come first); the rest
    /// are in report.json.
    static let maxHeartbeatFindings = 20
}

/// Writes a page whole or not at all (temp + rename): a reader never sees half a report.
extension RunReportPage {
    /// Pixels per character of a marker label (12 px bold), and the gap after one.
    static let labelCharacterWidth = 7.5
    static let labelGap = 4.0

    /// Each violation marker's label on the timeline: a marker that falls under the label of the
    /// cluster before it joins that cluster, labelled once at its first marker (`V3, V5`, or
    /// `V3 +4`: the lowest number and how many more) — dense violations were a pile of
    /// overlapping `V…` labels. The others get none
    /// (their line and tooltip stay). `markers`: violation index and x, in any order.
    static func markerLabels(_ markers: [(index: Int, x: Double)]) -> [Int: String] {
        func label(_ ids: [Int]) -> String {
            ids.count == 1 ? "V\(ids[0])" : ids.count == 2 ? "V\(ids[0]), V\(ids[1])" : "V\(ids[0]) +\(ids.count - 1)"
        }
        var out: [Int: String] = [:]
        var cluster: [(index: Int, x: Double)] = []
        func flush() {
            guard let head = cluster.first else { return }
            out[head.index] = label(cluster.map(\.index).sorted())
            for m in cluster.dropFirst() { out[m.index] = "" }
            cluster = []
        }
        for m in markers.sorted(by: { ($0.x, $0.index) < ($1.x, $1.index) }) {
            // Past the end of the cluster's label so far: a label of its own fits.
            if let head = cluster.first, m.x - head.x >= Double(label(cluster.map(\.index).sorted()).count) * labelCharacterWidth + labelGap { flush() }
            cluster.append(m)
        }
        flush()
        return out
    }
}

enum ReportFile {
    /// Through the one output rule (`OutputFile`): a regular file or nothing at `path` — a device,
    /// FIFO, socket, directory or symlink is refused, never replaced — written whole (temp, fsync,
    /// rename) or not at all.
    static func write(_ text: String, to path: String, what: String = RunReportPage.fileName) throws(RunReportError) {
        try check(path, what: what)
        do { try OutputFile.write(Data(text.utf8), to: path, what: what) } catch { throw RunReportError(error.description) }
    }

    /// How every page the harness writes begins (both templates; a test keeps them so): an
    /// existing file that does not is a user's, and is never replaced.
    static let ownPrefix = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"

    /// Refuses `path` before anything is written: the output rule (`OutputFile`), and an existing
    /// file must be empty or a page this harness wrote (`report --index notes.md` replaced it).
    static func check(_ path: String, what: String) throws(RunReportError) {
        do { try OutputFile.check(path, what: what) } catch { throw RunReportError(error.description) }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: ownPrefix.utf8.count)
        let n = read(fd, &head, head.count)
        guard n == 0 || (n == head.count && head.elementsEqual(ownPrefix.utf8)) else {
            throw RunReportError("\(what) \(path) exists and is not a page the harness wrote; choose another path (nothing was replaced)")
        }
    }
}
