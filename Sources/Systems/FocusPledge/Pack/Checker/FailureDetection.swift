import HarnessKit
import History

extension FocusPledgeChecker {
    /// Measures `violation-to-host` from a run: only completed violations delivered while a host
    /// process ran, written to the App Group by the extension (`isFailureWrite`), and seen by that
    /// same host process.
    enum FailureDetection {
        static func measure(_ run: FocusPledgeRun) -> LatencySeries {
            var samples: [Int64] = []
            var unseen = 0
            var suspended = 0
            for session in run.sessions {
                for violation in session.violations {
                    switch sample(violation, session.sessionId, run) {
                    case .latency(let nanos): samples.append(nanos)
                    case .unseen: unseen += 1
                    case .suspended: suspended += 1
                    case .notApplicable: break
                    }
                }
            }
            return violationToHost.series(samplesNanos: samples, excluded: ["unseen": unseen, "suspended": suspended])
        }

        enum Sample: Equatable {
            case latency(Int64)
            case unseen
            case suspended
            case notApplicable
        }

        static func sample(_ violation: CallbackDelivery, _ sessionId: String, _ run: FocusPledgeRun) -> Sample {
            let delivered = violation.delivered
            guard let host = run.hostLives.alive(atMono: delivered.mono), let extensionPid = violation.extensionPid,
                let recorded = run.events.first(where: {
                    $0.isFailureWrite && $0.pid == extensionPid && $0.mono >= delivered.mono
                })
            else { return .notApplicable }
            let seenByHost = run.events.filter {
                $0.isHostLine("failure_seen") && $0.pid == host.pid && $0.sessionIdField == sessionId
            }
            // The host reports a session's failure once per process: an earlier one was another violation's.
            guard !seenByHost.contains(where: { $0.mono < recorded.mono }) else { return .notApplicable }
            guard let seen = seenByHost.first(where: { $0.mono >= recorded.mono }) else { return .unseen }
            if host.wasSuspended(from: recorded.mono, to: seen.mono) { return .suspended }
            return .latency(seen.mono - recorded.mono)
        }
    }
}
