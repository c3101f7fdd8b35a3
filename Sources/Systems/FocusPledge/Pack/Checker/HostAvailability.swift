import HarnessKit
import History

extension FocusPledgeChecker {
    /// When the host process could act, in device time: alive and not stopped (by iOS's
    /// suspension or the nemesis). A promise "at once" is judged after the host has had
    /// `graceSeconds` of such time: iOS runs an app only in the foreground, and a dead app does nothing.
    struct HostAvailability: Sendable {
        /// Device-time intervals [from, to) in which a host process ran, in order.
        var running: [(from: Double, to: Double)]

        init(_ lives: [ProcessLifetime], endT: Double) {
            var out: [(Double, Double)] = []
            for life in lives {
                var from: Double? = life.spawn.t
                let end = life.exit?.t ?? endT
                for s in life.signals.sorted(by: { $0.mono < $1.mono }) {
                    switch s["signal"] {
                    case "STOP":
                        if let f = from { out.append((f, s.t)); from = nil }
                    case "CONT":
                        if from == nil { from = s.t }
                    default: break
                    }
                }
                if let f = from { out.append((f, end)) }
            }
            running = out.filter { $0.1 > $0.0 }.sorted { $0.0 < $1.0 }.map { (from: $0.0, to: $0.1) }
        }

        init(running: [(from: Double, to: Double)]) { self.running = running }

        /// The time both ran: this process and `other` (e.g. the host while the server was up).
        func intersection(_ other: HostAvailability) -> HostAvailability {
            var out: [(from: Double, to: Double)] = []
            for a in running {
                for b in other.running where b.to > a.from && b.from < a.to {
                    out.append((from: max(a.from, b.from), to: min(a.to, b.to)))
                }
            }
            return HostAvailability(running: out.sorted { $0.from < $1.from })
        }

        /// The first device time by which the host has run `graceSeconds` since `t`; nil if never
        /// within the history.
        func deadline(after t: Double, graceSeconds: Double) -> Double? {
            var left = graceSeconds
            for r in running where r.to > t {
                let from = max(r.from, t)
                if r.to - from >= left { return from + left }
                left -= r.to - from
            }
            return nil
        }
    }
}
