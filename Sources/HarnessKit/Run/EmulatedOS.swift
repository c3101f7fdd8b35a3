import SystemKit

/// The emulated iOS as plain data: the ManagedSettings ground truth it last recorded and the
/// DeviceActivity registrations it delivers interval callbacks for. Pure: it is shown what the
/// framework shims wrote (`observe`) and answers with history lines and extension calls to make;
/// the runner reads the files and starts the processes.
///
/// Today's rules (PROTOCOL.md §7): `intervalDidStart` once when device time reaches a
/// registration's start, `intervalDidEnd` once at its end, and `intervalDidEnd` at once when an
/// ongoing registration is removed (`stopMonitoring`). Schedules are absolute device times.
public struct EmulatedOS: Sendable, Equatable {
    public struct Registration: Sendable, Equatable {
        public var activity: String
        /// Device unix seconds.
        public var start: Double
        public var end: Double

        public init(activity: String, start: Double, end: Double) {
            self.activity = activity
            self.start = start
            self.end = end
        }
    }

    public enum Step: Sendable, Equatable {
        /// A harness history line.
        case record(String, [String: String])
        /// Launch the system's extension for this call; `label` goes on `callback_delivered`.
        case deliver(ExtensionCall, label: [String: String])
    }

    struct ActivityState: Sendable, Equatable {
        var start: Double
        var end: Double
        var started = false
        var ended = false
    }

    /// The shield set last recorded (sorted); nil before the first observation.
    public private(set) var shields: [String]?
    var activities: [String: ActivityState] = [:]

    public init() {}

    /// The OS looks at what the apps asked for, at device time `now`.
    public mutating func observe(shielded: Set<String>, registrations: [Registration], now: Double) -> [Step] {
        var steps: [Step] = []
        let apps = shielded.sorted()
        if apps != shields {
            shields = apps
            steps.append(.record("shields", ["apps": apps.joined(separator: ",")]))
        }
        var seen = Set<String>()
        for r in registrations.sorted(by: { $0.activity < $1.activity }) {
            seen.insert(r.activity)
            if let old = activities[r.activity], old.start == r.start, old.end == r.end {
                // unchanged
            } else {
                activities[r.activity] = ActivityState(start: r.start, end: r.end)
            }
            var state = activities[r.activity]!
            if !state.started && now >= state.start {
                state.started = true
                steps.append(.deliver(.monitor(.intervalDidStart, activity: r.activity, event: nil), label: ["activity": r.activity]))
            }
            if !state.ended && now >= state.end {
                state.ended = true
                steps.append(.deliver(.monitor(.intervalDidEnd, activity: r.activity, event: nil), label: ["activity": r.activity]))
            }
            activities[r.activity] = state
        }
        // stopMonitoring of an ongoing interval delivers intervalDidEnd.
        for name in activities.keys.sorted() where !seen.contains(name) {
            let state = activities[name]!
            if state.started && !state.ended {
                steps.append(.deliver(
                    .monitor(.intervalDidEnd, activity: name, event: nil), label: ["activity": name, "why": "stopMonitoring"]))
            }
            activities[name] = nil
        }
        return steps
    }

    /// The earliest interval start or end still to be delivered after `now` (virtual time steps
    /// there).
    public func nextDeadline(after now: Double) -> Double? {
        activities.values.flatMap { [$0.started ? nil : $0.start, $0.ended ? nil : $0.end] }.compactMap { $0 }.filter { $0 > now }.min()
    }

    /// True while `activity` is registered and `now` is inside its interval.
    public func isMonitored(_ activity: String, now: Double) -> Bool {
        activities[activity].map { now >= $0.start && now < $0.end } ?? false
    }
}
