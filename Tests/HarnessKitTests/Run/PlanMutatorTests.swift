import Foundation
import Testing

@testable import HarnessKit

/// `harness coverage --fuzz`'s mutations of a plan: each one is a plan a scenario may pin (times
/// inside the run, in order, no two faults on one process at once), it changes something, and the
/// same generator gives the same mutation.
@Suite(.timeLimit(.minutes(1))) struct PlanMutatorTests {
    static let duration = 3600.0
    static let plan = FuzzPlan(
        actions: [
            #"{"action":{"kind":"onboard"},"atDeviceOffsetSeconds":10}"#,
            #"{"action":{"kind":"openBlockedApp","press":1},"atDeviceOffsetSeconds":600}"#,
            #"{"action":{"kind":"leaveHost"},"atDeviceOffsetSeconds":1200.5}"#,
        ],
        faults: [
            #"{"atDeviceOffsetMillis":58000,"holdDeviceMillis":20000,"kind":"stop","target":"host-app"}"#,
            #"{"atDeviceOffsetMillis":100000,"holdDeviceMillis":300000,"kind":"kill","target":"host-app"}"#,
            #"{"atDeviceOffsetMillis":120000,"holdDeviceMillis":5000,"kind":"stop","target":"shield-action-extension"}"#,
        ],
        seed: 1)
    static let other = FuzzPlan(
        actions: [#"{"action":{"kind":"openBlockedApp","press":9},"atDeviceOffsetSeconds":3000}"#], faults: [], seed: 2)

    @Test func everyMutationIsAPlanAScenarioMayPin() {
        var seen = Set<String>()
        for seed in UInt64(0)..<400 {
            var g = SeededGenerator(seed: seed)
            let (p, what) = PlanMutator.mutate(Self.plan, other: Self.other, durationSeconds: Self.duration, generator: &g)
            let op = String(what.prefix { $0 != " " })
            seen.insert(op)
            #expect(PlanMutator.operators.contains(op), "\(what)")
            #expect(p != Self.plan, "\(what) changed nothing")
            let times = p.actions.map(PlanMutator.actionTime)
            #expect(times == times.sorted(), "\(what): actions out of order")
            #expect(times.allSatisfy { $0 >= 0 && $0 < Self.duration }, "\(what): \(times)")
            let faults = p.faults.map(PlanMutator.faultTimes)
            #expect(faults.map(\.at) == faults.map(\.at).sorted(), "\(what): faults out of order")
            #expect(faults.allSatisfy { $0.at >= 0 && $0.at + $0.hold <= Int(Self.duration * 1000) }, "\(what): \(faults)")
            #expect(!PlanMutator.overlapping(p.faults), "\(what): overlapping faults")
        }
        // 400 draws reach every operator.
        #expect(seen == Set(PlanMutator.operators))
    }

    @Test func repeatAddsTheSameStepSoonAfterAndSpliceTakesTheOtherPlansLaterSteps() {
        for seed in UInt64(0)..<400 {
            var g = SeededGenerator(seed: seed)
            let (p, what) = PlanMutator.mutate(Self.plan, other: Self.other, durationSeconds: Self.duration, generator: &g)
            if what.hasPrefix("repeat-action") {
                #expect(p.actions.count == Self.plan.actions.count + 1)
                let added = p.actions.filter { !Self.plan.actions.contains($0) }
                #expect(added.count == 1)
                let twin = Self.plan.actions.first { PlanMutator.object($0)["action"] as? NSDictionary == PlanMutator.object(added[0])["action"] as? NSDictionary }
                let gap = PlanMutator.actionTime(added[0]) - PlanMutator.actionTime(twin ?? "")
                #expect(twin != nil && gap >= 1 && gap <= 90, "\(what): \(added)")
            }
            if what.hasPrefix("splice") {
                #expect(p.actions.allSatisfy { Self.plan.actions.contains($0) || Self.other.actions.contains($0) })
            }
        }
    }

    /// Which button: `other-choice` gives one field of one action a value that field has elsewhere
    /// in the plans (here: the kinds, and the other plan's `tapAction`), and changes nothing else.
    @Test func otherChoiceTakesAnotherValueOfTheSameFieldFromThePlans() {
        let other = FuzzPlan(actions: [#"{"action":{"kind":"tapNotification","press":1,"tapAction":"later"},"atDeviceOffsetSeconds":700}"#], faults: [], seed: 2)
        let plan = FuzzPlan(
            actions: [
                #"{"action":{"kind":"pressWorkout","press":1},"atDeviceOffsetSeconds":10}"#,
                #"{"action":{"kind":"tapNotification","press":1,"tapAction":"default"},"atDeviceOffsetSeconds":600}"#,
            ], faults: [], seed: 1)
        var made = Set<String>()
        for seed in UInt64(0)..<300 {
            var g = SeededGenerator(seed: seed)
            let (p, what) = PlanMutator.mutate(plan, other: other, durationSeconds: Self.duration, generator: &g)
            guard what.hasPrefix("other-choice") else { continue }
            let changed = zip(plan.actions, p.actions).filter { $0 != $1 }
            #expect(changed.count == 1, "\(what)")
            guard let (before, after) = changed.first else { continue }
            let a = PlanMutator.object(before)["action"] as? [String: Any] ?? [:], b = PlanMutator.object(after)["action"] as? [String: Any] ?? [:]
            let keys = Set(a.keys).union(b.keys).filter { "\(a[$0] ?? "")" != "\(b[$0] ?? "")" }
            #expect(keys.count == 1, "\(what): \(keys)")
            #expect(PlanMutator.actionTime(before) == PlanMutator.actionTime(after))
            made.insert("\(keys.first ?? "") \(b[keys.first ?? ""] ?? "")")
        }
        // Every choice the plans offer, and no other: a press becomes the tap, the tap a press,
        // the default tap LATER.
        #expect(made == ["kind tapNotification", "kind pressWorkout", "tapAction later"], "\(made)")
    }

    @Test func theSameGeneratorGivesTheSameMutation() {
        var a = SeededGenerator(seed: 77)
        var b = SeededGenerator(seed: 77)
        for _ in 0..<20 {
            let x = PlanMutator.mutate(Self.plan, other: Self.other, durationSeconds: Self.duration, generator: &a)
            let y = PlanMutator.mutate(Self.plan, other: Self.other, durationSeconds: Self.duration, generator: &b)
            #expect(x.plan == y.plan && x.what == y.what)
        }
    }

    @Test func overlapIsPerTarget() {
        #expect(PlanMutator.overlapping([
            #"{"atDeviceOffsetMillis":0,"holdDeviceMillis":10,"target":"a"}"#, #"{"atDeviceOffsetMillis":9,"holdDeviceMillis":10,"target":"a"}"#,
        ]))
        #expect(!PlanMutator.overlapping([
            #"{"atDeviceOffsetMillis":0,"holdDeviceMillis":10,"target":"a"}"#, #"{"atDeviceOffsetMillis":10,"holdDeviceMillis":10,"target":"a"}"#,
            #"{"atDeviceOffsetMillis":5,"holdDeviceMillis":10,"target":"b"}"#,
        ]))
    }
}
