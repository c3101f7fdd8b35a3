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

    let index: HistoryIndex
    var events: [HistoryEvent] { index.events }
    var reports: [Report] = []
    /// Reports iOS never made to the extension: dropped (`callback_dropped`).
    var dropped: [HistoryEvent] = []
    /// First `reminder` line per identifier (the same identifier again replaces the notification).
    var reminders: [Reminder] = []
    /// Device-time spans in which the host's process ran: alive and not stopped (iOS suspends an
    /// app in the background by SIGSTOP; the nemesis stops it too).
    var hostRunning: HostAvailability
    /// ... and the host was in the foreground: when the user sees the app and its JS runs.
    var hostUp: HostAvailability
    var endT: Double { index.endT }
    /// Device-time windows in which the host's App Group reads were stale (an `os.faults`
    /// `stale_defaults` rule acting: `defaults_fault kind=stale_read`, PROTOCOL.md §3): a report
    /// written then is invisible to the host until the window ends.
    var staleWindows: [(from: Double, to: Double)] = []

    /// A reminder names the report it answers by the report's timestamp (the JSON's `timestamp`);
    /// under a fixed clock rate the extension reads `Date()` a little after the delivery.
    static let attributionSlackMillis: Int64 = 2_000

    init(_ history: [HistoryEvent]) {
        index = HistoryIndex(history)
        let events = index.events
        var byKey: [String: Int] = [:]
        for d in index.deliveries where d.callback == "eventDidReachThreshold" {
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
        hostRunning = index.running(UntilPack.hostRole)
        hostUp = index.foreground.intersection(hostRunning)
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
