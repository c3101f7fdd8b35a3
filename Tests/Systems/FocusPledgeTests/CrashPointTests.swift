import AppGroup
import SystemKit
import FocusPledge
import Foundation
import Testing

/// Kills the hardened host after every unit of its effects (each effect, each key of a
/// non-atomic write), relaunches it — and, for the violation scenario, kills the relaunched
/// process at every point too — and checks the seed's promises every time.
@Suite(.timeLimit(.minutes(1))) struct CrashPointTests {
    enum Scenario: String, CaseIterable, Sendable {
        case violation, clean
    }

    /// Runs the scenario with the given kill budgets (first process, then each relaunch; the last
    /// relaunch never dies). Returns the rig after everything settled down.
    static func run(_ scenario: Scenario, budgets: [Int?]) -> Rig {
        var rig = Rig(.hardened)
        var budgets = budgets[...]
        rig.hostKillBudget = budgets.popFirst() ?? nil
        switch scenario {
        case .violation:
            rig.start("s1", minutes: 30)
            rig.run(for: 30)
            rig.threshold("s1")
            rig.notified()
            rig.run(for: 30)
        case .clean:
            rig.start("s1", minutes: 15)
            rig.run(for: 15 * 60 + 5 + AppGroupStorage.lateCallbackGraceSeconds)
        }
        var relaunches = 0
        while !rig.hostAlive {
            relaunches += 1
            precondition(relaunches <= 10, "bounded relaunches")
            rig.advance(1)
            rig.relaunch(budget: budgets.popFirst() ?? nil)
            rig.run(for: 30 * 60)
        }
        return rig
    }

    static func check(_ rig: Rig, _ scenario: Scenario, _ label: String) {
        let sessionRecorded = rig.performed.contains {
            if case .setDefaults(let writes, _) = $0 {
                return writes.contains { $0.key == FocusPledgeKeys.sessionRecord }
            }
            return false
        }
        let failureRecorded = rig.device.traces(named: "failure_recorded").contains { $0["sessionId"] == "s1" }
        let expected: [Resolution]
        if !sessionRecorded {
            expected = []
        } else if scenario == .violation && failureRecorded {
            expected = [.failure]
        } else {
            expected = [.success]
        }
        #expect(rig.server.resolutions("s1") == expected, "\(label)")
        #expect(rig.device.shields == nil, "\(label): shields left up")
        #expect(rig.device.monitored.isEmpty, "\(label): monitoring left")
        #expect(AppGroupStorage.activeSessionId(rig.store) == nil, "\(label): session left in the suite")
        // iOS's UserDefaults writes one key at a time (the torn_write field fault): every write
        // hardened makes, in the host or an extension, must be one key, or a kill can tear it.
        for case .setDefaults(let writes, _) in rig.performed {
            #expect(writes.count == 1, "\(label): a multi-key write \(writes.map(\.key)) can be torn")
        }
    }

    static func totalUnits(_ scenario: Scenario) -> Int {
        let rig = run(scenario, budgets: [nil])
        return rig.hostEffects.flatMap { $0 }.map(\.units).reduce(0, +)
    }

    @Test(arguments: Scenario.allCases)
    func killAtEveryPointOfTheFirstProcess(_ scenario: Scenario) {
        let total = Self.totalUnits(scenario)
        #expect(total > 10)
        for k in 0...total {
            let rig = Self.run(scenario, budgets: [k])
            Self.check(rig, scenario, "\(scenario) killed after \(k) of \(total)")
        }
    }

    @Test func killTheRelaunchedProcessAtEveryPointToo() {
        let total = Self.totalUnits(.violation)
        var runs = 0
        for k in 0...total {
            for j in 0...12 {
                let rig = Self.run(.violation, budgets: [k, j])
                Self.check(rig, .violation, "killed after \(k), relaunch killed after \(j)")
                runs += 1
            }
        }
        #expect(runs > 100)
    }
}
