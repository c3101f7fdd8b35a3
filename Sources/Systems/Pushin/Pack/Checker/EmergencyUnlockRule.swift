import HarnessKit
import History

/// `ShieldState.emergencyUnlocksRemaining` ("Emergency unlock logic remains secure"): an emergency
/// press spends exactly one unlock when one remains and none otherwise, and the count never goes
/// below zero. The count before a press is the last value any process wrote (onboarding's first).
enum EmergencyUnlockRule {
    static let descriptor = InvariantDescriptor(
        name: "emergency-unlocks-counted",
        promise: "Each emergency unlock spends exactly one of emergencyUnlocksRemaining while any remain, none when none do; the count never goes below zero.",
        source: "seed 002, Shield State Persistence: 'var emergencyUnlocksRemaining: Int'; Security: 'Emergency unlock logic remains secure'")

    static func judge(_ run: PushinRun) -> RuleOutcome {
        var outcome = RuleOutcome(descriptor.name, subjectKind: "press")
        for w in run.unlockWrites where w.value < 0 {
            outcome.fail(w.process, "emergency_unlocks_remaining was set to \(w.value == Int.min ? "a non-number" : String(w.value))", [w.line])
        }
        for c in run.calls where c.action == "secondaryButtonPressed" && c.responded != nil {
            outcome.checkedCount += 1
            let before = run.unlockWrites.last { $0.line.mono < c.begin.mono }?.value ?? 0
            let subject = c.begin["delivery"] ?? String(c.pid)
            let written = c.unlockWrites.map(\.value)
            let expected = before > 0 ? [before - 1] : []
            if written != expected {
                outcome.fail(
                    subject, "an emergency press with \(before) unlock(s) left wrote \(written) (expected \(expected))",
                    [c.begin] + c.unlockWrites.map { Optional($0.line) } + [c.responded])
            }
        }
        return outcome
    }
}
