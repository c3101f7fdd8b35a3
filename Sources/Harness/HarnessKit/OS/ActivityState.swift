import Foundation
import ScreenTimeModel

/// One monitored activity as the OS tracks it: its registration, how far its boundary callbacks
/// have been made, whether an interval is running, and the use counted toward its events in it.
struct ActivityState: Sendable, Equatable {
    var record: ActivityRegistrationRecord
    /// Boundary instants at or before this (device unix seconds) are done.
    var processedUpTo: Double
    var interval: DateInterval?
    /// Seconds of frontmost use counted per event in the running interval.
    var usage: [String: Double] = [:]
    var reached: Set<String> = []
    var warned: Set<String> = []
    /// Whether the device was used since the running interval started (`os.rules.thresholds: atFirstUse`).
    var usedInInterval = false
    /// Events whose use in this interval includes past activity only `os.rules.pastActivity:
    /// always` counted: their warning and threshold calls name the rule.
    var pastCountedByRule: Set<String> = []
    /// `os.rules.startAtRegistration: missed`: an interval starting "the current moment" of the
    /// registration is not run.
    let missesStartAtRegistration: Bool

    var inInterval: Bool { interval != nil }
    /// `repeats: false` after its one interval ended: no callback comes from it again, not even
    /// when a time zone change moves its local times to an interval still to come.
    var ended = false

    /// How far ahead a deadline is looked for (a schedule's interval is at most a week).
    static let horizonSeconds: Double = 8 * 24 * 3600

    enum BoundaryKind: Int, Sendable, Comparable {
        // At one instant an interval ends before the next one starts.
        case end = 0, willEnd = 1, willStart = 2, start = 3
        static func < (a: BoundaryKind, b: BoundaryKind) -> Bool { a.rawValue < b.rawValue }
    }

    struct Boundary: Sendable, Equatable {
        var at: Double
        var kind: BoundaryKind
        var interval: DateInterval
    }

    init(record: ActivityRegistrationRecord, missesStartAtRegistration: Bool = false) {
        self.record = record
        self.missesStartAtRegistration = missesStartAtRegistration
        // Monitoring starts at registration: a boundary at that very instant is still to come.
        processedUpTo = record.registeredAt.timeIntervalSince1970 - 0.001
    }

    /// The boundaries in `(after, through]`, in order. An interval already running at
    /// registration starts at the registration (iOS calls `intervalDidStart` then).
    func boundaries(after: Double, through: Double, timeZone: TimeZone) -> [Boundary] {
        let registered = record.registeredAt.timeIntervalSince1970
        // A warning comes before its interval starts, so intervals starting up to a horizon past
        // `through` are looked at too.
        let intervals = ScheduleRules.intervals(
            of: record.schedule, registeredAt: record.registeredAt, until: Date(timeIntervalSince1970: through + Self.horizonSeconds),
            timeZone: timeZone)
        var out: [Boundary] = []
        let missed = missedInterval(timeZone: timeZone)
        for i in intervals where i != missed {
            let start = max(i.start.timeIntervalSince1970, registered)
            let end = i.end.timeIntervalSince1970
            var items: [(Double, BoundaryKind)] = [(start, .start), (end, .end)]
            if let w = try? ScheduleWarnings.of(i, warningTime: record.schedule.warningTime) {
                if w.willStart.timeIntervalSince1970 >= registered { items.append((w.willStart.timeIntervalSince1970, .willStart)) }
                items.append((max(start, w.willEnd.timeIntervalSince1970), .willEnd))
            }
            for (t, kind) in items where t > after && t <= through { out.append(Boundary(at: t, kind: kind, interval: i)) }
        }
        return out.sorted { ($0.at, $0.kind) < ($1.at, $1.kind) }
    }

    /// The interval `os.rules.startAtRegistration: missed` does not run: the first one, when its
    /// start matched at most `OSRules.currentMomentSeconds` before the registration. Nil otherwise.
    func missedInterval(timeZone: TimeZone) -> DateInterval? {
        guard missesStartAtRegistration,
            let first = ScheduleRules.nextInterval(of: record.schedule, at: record.registeredAt, timeZone: timeZone)
        else { return nil }
        let registered = record.registeredAt.timeIntervalSince1970, start = first.start.timeIntervalSince1970
        return start <= registered && start >= registered - OSRules.currentMomentSeconds ? first : nil
    }

    /// The boundaries in `(after, through]`, from a cache of the next weeks (working a schedule
    /// out with the calendar is the costliest part of a virtual-time step). The cache is a pure
    /// function of the record and the time zone, so it never changes an answer.
    mutating func cachedBoundaries(after: Double, through: Double, timeZone: TimeZone) -> [Boundary] {
        guard !ended else { return [] }
        if cache == nil || cache!.timeZone != timeZone.identifier || after < cache!.from || through > cache!.through {
            let upTo = max(through, after + 3 * Self.horizonSeconds)
            cache = BoundaryCache(timeZone: timeZone.identifier, from: after, through: upTo, list: boundaries(after: after, through: upTo, timeZone: timeZone))
        }
        return cache!.list.filter { $0.at > after && $0.at <= through }
    }

    struct BoundaryCache: Sendable, Equatable {
        var timeZone: String
        var from: Double
        var through: Double
        var list: [Boundary]
    }

    var cache: BoundaryCache?

    mutating func nextBoundary(after now: Double, timeZone: TimeZone) -> Double? {
        let from = max(now, processedUpTo)
        return cachedBoundaries(after: from, through: from + Self.horizonSeconds, timeZone: timeZone).first?.at
    }

    /// The event names whose selection includes `app` (bundle id) or its category, sorted.
    func events(matching app: String, category: String?) -> [String] {
        record.events.keys.sorted().filter { name in
            let e = record.events[name]!
            if e.applications.contains(where: { OpaqueToken.identifier($0, of: .application) == app }) { return true }
            if let category, e.categories.contains(where: { OpaqueToken.identifier($0, of: .category) == category }) { return true }
            return false
        }
    }
}
