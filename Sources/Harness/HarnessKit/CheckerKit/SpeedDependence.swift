import Foundation
import History

/// Verdicts that depend on the machine's speed. Under `clock.mode: fixed` device time runs at
/// `rate` times wall time whatever the processes do, so a promise judged within B device seconds
/// gives the app B / rate of wall time: at 600x, Exit's 2 s tap bound is 3.3 ms — less than a
/// process may wait for a CPU on a loaded machine, and whether it is kept says more about the
/// machine than about the app. The harness warns before such a run, and a violation of such a
/// promise is reported apart (`CheckReport.speedDependent`) and never as the app's: a run whose
/// only violations are such is undecided. Under virtual time (the default) no verdict depends on
/// speed: device time waits for every process.
public enum SpeedDependence {
    /// The wall time a process may wait before it runs on a loaded 2-core machine (a launch's p99 is
    /// ~6 ms quiet, tens of ms under load; a stopped or busy CPU more): a bound that gives the app
    /// less wall time than this is the machine's.
    public static let jitterWallSeconds = 0.1

    /// One promise whose bound is too short at a rate.
    public struct Bound: Sendable, Equatable {
        public var invariant: String
        /// The bound, device seconds.
        public var boundSeconds: Double
        /// What it is in wall time at the run's rate.
        public var wallSeconds: Double

        /// "tap-served's 2 s bound is 3.3 ms of wall".
        public var text: String {
            "\(invariant)'s \(Self.seconds(boundSeconds)) bound is \(String(format: "%.1f", wallSeconds * 1000)) ms of wall"
        }

        static func seconds(_ s: Double) -> String { s >= 1 && s == s.rounded() ? "\(Int(s)) s" : "\(s) s" }
    }

    /// The invariants of `descriptor` whose bound is shorter than the jitter at `rate` device
    /// seconds per wall second, shortest first.
    public static func bounds(_ descriptor: SystemDescriptor, rate: Double) -> [Bound] {
        guard rate > 0 else { return [] }
        return descriptor.invariants.compactMap { i -> Bound? in
            guard let b = i.boundSeconds, b / rate < jitterWallSeconds else { return nil }
            return Bound(invariant: i.name, boundSeconds: b, wallSeconds: b / rate)
        }.sorted { ($0.wallSeconds, $0.invariant) < ($1.wallSeconds, $1.invariant) }
    }

    /// The line printed before a fixed-rate run whose verdicts on `bounds` depend on the machine.
    public static func warning(scenario: String, rate: Double, bounds: [Bound]) -> String {
        "warning: \(scenario) runs at clock.mode: fixed, \(Int(rate))x: " + bounds.map(\.text).joined(separator: "; ")
            + " — under the \(Int(jitterWallSeconds * 1000)) ms a process may wait on a loaded machine, so a violation of "
            + (bounds.count == 1 ? "it" : "these") + " is the machine's, reported undecided (clock.mode: virtual judges them)"
    }

    /// Moves the violations of speed-dependent invariants out of `report` (into `speedDependent`)
    /// when the history's run was at a fixed rate (`run_started` `clockMode`, `rate`); a report left
    /// with no other violation is undecided, saying why.
    public static func apply(to report: inout CheckReport, descriptor: SystemDescriptor, events: [HistoryEvent]) {
        guard report.decided, let started = events.first(where: { $0.isHarnessLine(.runStarted) }), started["clockMode"] == "fixed",
            let rate = started["rate"].flatMap(Double.init)
        else { return }
        let slow = bounds(descriptor, rate: rate)
        let names = Set(slow.map(\.invariant))
        let moved = report.violations.filter { names.contains($0.invariant) }
        guard !moved.isEmpty else { return }
        report.violations.removeAll { names.contains($0.invariant) }
        report.speedDependent = moved
        if report.violations.isEmpty {
            let which = slow.filter { b in moved.contains { $0.invariant == b.invariant } }
            report.decided = false
            report.undecidedReason = "speed-dependent: at clock.mode: fixed, \(Int(rate))x, " + which.map(\.text).joined(separator: "; ")
                + ", under the \(Int(jitterWallSeconds * 1000)) ms a process may wait on a loaded machine — its violation is the machine's as much as the app's; rerun with clock.mode: virtual"
        }
    }
}
