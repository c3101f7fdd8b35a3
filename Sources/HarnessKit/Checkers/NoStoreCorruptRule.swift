import History

extension FocusPledgeChecker {
    /// `no-store-corrupt`: no App Group store file was ever found corrupt (quarantined).
    enum NoStoreCorruptRule {
        static func judge(_ run: FocusPledgeRun) -> RuleOutcome {
            var outcome = RuleOutcome(.noStoreCorrupt)
            outcome.checkedCount = 1
            for event in run.events where event.isHarnessLine("quarantine") {
                outcome.fail(
                    nil,
                    "store file \(event["file"] ?? "?") was corrupt (\(event["reason"] ?? "?")), "
                        + "moved to \(event["movedTo"] ?? "?")",
                    [event])
            }
            return outcome
        }
    }
}
