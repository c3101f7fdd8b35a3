import HarnessKit
import History

/// What the Until checker reads from a merged history: the OS's reports to the monitor extension,
/// the host's reminders and which of them reached the user, and when the host could act.
struct UntilRun {
    /// One app opening iOS reported: the `eventDidReachThreshold` calls of one event at one device
    /// instant (a duplicated call is the same report made twice).
    struct Report {
        var activity: String
        var event: String
        /// Device time the extension ran, in whole ms: what its `Date()` read.
        var millis: Int64
        var deliveries: [CallbackDelivery]
        /// Some call of it returned: the extension did its work (the OS reported it, the app knows).
        var received: Bool { deliveries.contains(where: \.isCompleted) }
        var first: HistoryEvent { deliveries[0].delivered }
        var t: Double { Double(millis) / 1000 }
        var id: String { "\(activity)/\(event)@\(millis)" }
    }

    /// A reminder the host fired, with the OS's delivery of it (nil: never shown to the user).
    struct Reminder {
        var line: HistoryEvent
        var delivered: HistoryEvent?
        var identifier: String { line["identifier"] ?? "" }
        var eventMillis: Int64? { line["eventTimestamp"].flatMap { Int64($0) } }
    }

    let events: [HistoryEvent]
    var reports: [Report] = []
    /// Reports iOS never made to the extension: dropped (`callback_dropped`).
    var dropped: [HistoryEvent] = []
    /// First `reminder` line per identifier (the same identifier again replaces the notification).
    var reminders: [Reminder] = []
    /// Device-time spans in which the host's process ran: alive and not stopped (iOS suspends an
    /// app in the background by SIGSTOP; the nemesis stops it too).
    var hostRunning: Spans
    /// ... and the host was in the foreground: when the user sees the app and its JS runs.
    var hostUp: Spans
    var endT: Double
    /// Device-time windows in which the host's App Group reads were stale (an `os.faults`
    /// `stale_defaults` rule acting: `defaults_fault kind=stale_read`, PROTOCOL.md §3): a report
    /// written then is invisible to the host until the window ends.
    var staleWindows: [(from: Double, to: Double)] = []

    /// A reminder names the report it answers by the report's timestamp (the JSON's `timestamp`);
    /// under a fixed clock rate the extension reads `Date()` a little after the delivery.
    static let attributionSlackMillis: Int64 = 2_000

    init(_ events: [HistoryEvent]) {
        self.events = events
        endT = events.last(where: { $0.isHarnessLine("run_finished") })?.t ?? events.last?.t ?? 0
        var byKey: [String: Int] = [:]
        for d in CallbackDelivery.deliveries(in: events) where d.callback == "eventDidReachThreshold" {
            let start = d.delivered["deferredUntil"].flatMap(Double.init) ?? d.delivered.t
            let millis = Int64((start * 1000).rounded())
            // `event` is a fixed key of a history line: the OS's field is kept as `field_event`.
            let activity = d.activity ?? "", event = d.delivered["field_event"] ?? d.delivered["event"] ?? ""
            let key = "\(activity)/\(event)@\(millis)"
            if let i = byKey[key] {
                reports[i].deliveries.append(d)
            } else {
                byKey[key] = reports.count
                reports.append(Report(activity: activity, event: event, millis: millis, deliveries: [d]))
            }
        }
        reports.sort { $0.millis < $1.millis }
        dropped = events.filter { $0.isHarnessLine("callback_dropped") && $0["callback"] == "eventDidReachThreshold" }
        var seen: Set<String> = []
        for line in events where line.isLine(of: UntilPack.hostRole, "reminder") {
            guard let id = line["identifier"], seen.insert(id).inserted else { continue }
            let shown = events.first { $0.isHarnessLine("notification_delivered") && $0["identifier"] == id && $0.mono >= line.mono }
            reminders.append(Reminder(line: line, delivered: shown))
        }
        staleWindows = events.filter { $0.isLine(of: UntilPack.hostRole, "defaults_fault") && $0["kind"] == "stale_read" }.map {
            (from: $0.t, to: $0.t + ($0["staleSeconds"].flatMap(Double.init) ?? 0))
        }
        hostRunning = Spans.running(ProcessLifetime.lifetimes(of: UntilPack.hostRole, in: events), endT: endT)
        hostUp = Spans.foreground(events, endT: endT).intersection(hostRunning)
    }

    /// When the host could first read a report made at `t`: `t`, or the end of a stale window that
    /// was open then or opened within `within` seconds after (its reads then served the old suite).
    func visibleFrom(_ t: Double, within: Double) -> Double {
        staleWindows.filter { $0.to > t && $0.from <= t + within }.map(\.to).reduce(t, max)
    }

    /// The report a reminder answers: the latest report at or before its timestamp, within the slack.
    func report(for reminder: Reminder) -> Int? {
        guard let ms = reminder.eventMillis else { return nil }
        guard let i = reports.lastIndex(where: { $0.millis <= ms }), ms - reports[i].millis <= Self.attributionSlackMillis else { return nil }
        return i
    }

    /// Reminders the user was shown, by the report they answer (index into `reports`).
    func shownByReport() -> [Int: [Reminder]] {
        var out: [Int: [Reminder]] = [:]
        for r in reminders where r.delivered != nil {
            if let i = report(for: r) { out[i, default: []].append(r) }
        }
        return out
    }
}

/// Device-time intervals [from, to), sorted and disjoint.
struct Spans: Equatable {
    var spans: [(from: Double, to: Double)]

    static func == (a: Spans, b: Spans) -> Bool { a.spans.elementsEqual(b.spans) { $0.from == $1.from && $0.to == $1.to } }

    /// The host's `host_state` foreground periods.
    static func foreground(_ events: [HistoryEvent], endT: Double) -> Spans {
        var out: [(Double, Double)] = []
        var since: Double?
        for e in events where e.isHarnessLine("host_state") {
            if e["state"] == "foreground" {
                if since == nil { since = e.t }
            } else if let s = since {
                out.append((s, e.t))
                since = nil
            }
        }
        if let s = since { out.append((s, endT)) }
        return Spans(out)
    }

    /// When a process of the role was alive and not SIGSTOPped.
    static func running(_ lives: [ProcessLifetime], endT: Double) -> Spans {
        var out: [(Double, Double)] = []
        for life in lives {
            var from: Double? = life.spawn.t
            for s in life.signals.sorted(by: { $0.mono < $1.mono }) {
                switch s["signal"] {
                case "STOP": if let f = from { out.append((f, s.t)); from = nil }
                case "CONT": if from == nil { from = s.t }
                default: break
                }
            }
            if let f = from { out.append((f, life.exit?.t ?? endT)) }
        }
        return Spans(out)
    }

    init(_ raw: [(Double, Double)]) {
        var merged: [(from: Double, to: Double)] = []
        for (f, t) in raw.filter({ $0.1 > $0.0 }).sorted(by: { $0.0 < $1.0 }) {
            if let last = merged.last, f <= last.to {
                merged[merged.count - 1].to = max(last.to, t)
            } else {
                merged.append((f, t))
            }
        }
        spans = merged
    }

    func intersection(_ other: Spans) -> Spans {
        var out: [(Double, Double)] = []
        for a in spans {
            for b in other.spans where b.to > a.from && b.from < a.to { out.append((max(a.from, b.from), min(a.to, b.to))) }
        }
        return Spans(out)
    }

    /// The device time by which `seconds` of these spans have passed after `t`; nil if they never do.
    func deadline(after t: Double, seconds: Double) -> Double? {
        var left = seconds
        for s in spans where s.to > t {
            let from = max(s.from, t)
            if s.to - from >= left { return from + left }
            left -= s.to - from
        }
        return nil
    }

    /// True when `[t, t + seconds]` lies inside one span.
    func covers(_ t: Double, seconds: Double) -> Bool { spans.contains { $0.from <= t && t + seconds <= $0.to } }
}
