import FocusPledge
import HarnessKit
import History

extension FocusPledgeChecker {
    /// `error-reported` (MethodChannel 4, startNativeSession "Returns: {success, error}": a failed
    /// `startMonitoring` or ManagedSettings write is the app's to report, never to swallow): every
    /// `monitoring_error` / `shield_error` in the host's trace is followed, in the same process, by
    /// an `error_reported` line — unless that process wrote nothing more (it died at once).
    enum ErrorReportedRule {
        static let errors: Set<String> = ["monitoring_error", "shield_error"]

        static func judge(_ run: FocusPledgeRun) -> RuleOutcome {
            var outcome = RuleOutcome(FocusPledgeInvariant.errorReported.rawValue, subjectKind: "session")
            let host = run.events.filter { $0.process == HistoryEvent.hostProcessName }
            for (i, error) in host.enumerated() where errors.contains(error.event) {
                let later = host[(i + 1)...].filter { $0.pid == error.pid }
                guard !later.isEmpty else { continue }
                outcome.checkedCount += 1
                guard !later.contains(where: { $0.event == "error_reported" }) else { continue }
                outcome.fail(
                    error.sessionIdField ?? error["activity"].flatMap(FocusPledgeKeys.sessionId(fromActivity:)),
                    "\(error.event) (\(error["error"] ?? "?")) was swallowed: the host went on without reporting it", [error, later.first])
            }
            return outcome
        }
    }
}
