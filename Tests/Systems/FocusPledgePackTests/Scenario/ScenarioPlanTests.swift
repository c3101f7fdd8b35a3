@testable import FocusPledgePack
import Foundation
import Testing
@testable import HarnessKit

@Suite("Seeded scenario plans", .timeLimit(.minutes(1)))
struct ScenarioPlanTests {
    static let wallSpanMillis = 12_000

    func bundled() throws -> Scenario {
        try ScenarioParser.load(path: bundledScenarioPath())
    }

    /// A scenario that exercises everything: many violations, hand stops, all fault kinds.
    func busy() throws -> Scenario {
        var scenario = try bundled()
        scenario.durationSeconds = 24 * 3600
        scenario.workload.violationProbability = 0.8
        scenario.workload.maxViolationsPerSession = 5
        scenario.workload.stopSessionProbability = 0.3
        return scenario
    }

    @Test("SplitMix64 is the reference algorithm (pinned: plans must not change between toolchains)")
    func generatorIsPinned() {
        // Reference SplitMix64 from state 0 yields 0xE220A8397B1DCDAF, then 0x6E789E6AA1B965F4;
        // our generator discards the first draw.
        var generator = SeededGenerator(seed: 0)
        let first = generator.next()
        #expect(first == 0x6E78_9E6A_A1B9_65F4)
        var other = SeededGenerator(seed: 0, stream: 1)
        let otherFirst = other.next()
        #expect(otherFirst != 0x6E78_9E6A_A1B9_65F4)
    }

    @Test("bounded draws stay in range and reach both ends")
    func generatorRanges() {
        var generator = SeededGenerator(seed: 7)
        var seen = Set<Int>()
        for _ in 0..<2000 {
            let value = generator.int(in: 3...9)
            #expect((3...9).contains(value))
            seen.insert(value)
        }
        #expect(seen == Set(3...9))
        let single = generator.int(in: 5...5)
        #expect(single == 5)
        for _ in 0..<1000 {
            let unit = generator.unit()
            #expect(unit >= 0 && unit < 1)
        }
        let never = generator.chance(0)
        let always = generator.chance(1)
        let none = generator.weightedIndex([0, 0])
        let onlyPositive = generator.weightedIndex([0, 3, 0])
        #expect(!never)
        #expect(always)
        #expect(none == nil)
        #expect(onlyPositive == 1)
    }

    @Test("same scenario and seed: byte-identical schedule.json")
    func sameSeedSameJSON() throws {
        let scenario = try busy()
        let first = try ScenarioPlan.make(scenario: scenario, seed: 42, wallSpanMillis: Self.wallSpanMillis).jsonData()
        let second = try ScenarioPlan.make(scenario: scenario, seed: 42, wallSpanMillis: Self.wallSpanMillis).jsonData()
        #expect(first == second)
        // Sorted keys: "atDeviceOffsetSeconds" comes before "action" would not; check one object.
        let text = String(decoding: first, as: UTF8.self)
        #expect(text.contains("\"deviceDurationSeconds\""))
        let faultsIndex = try #require(text.range(of: "\"faults\""))
        let userActionsIndex = try #require(text.range(of: "\"userActions\""))
        #expect(faultsIndex.lowerBound < userActionsIndex.lowerBound)
    }

    @Test("different seeds: different plans")
    func differentSeedDifferentPlan() throws {
        let scenario = try busy()
        let a = ScenarioPlan.make(scenario: scenario, seed: 1, wallSpanMillis: Self.wallSpanMillis)
        let b = ScenarioPlan.make(scenario: scenario, seed: 2, wallSpanMillis: Self.wallSpanMillis)
        #expect(a.userActions != b.userActions)
        #expect(a.faults != b.faults)
        #expect(try a.jsonData() != b.jsonData())
    }

    @Test("schedule.json decodes back to the same plan, including a 64-bit seed")
    func roundTrip() throws {
        let plan = ScenarioPlan.make(scenario: try busy(), seed: UInt64.max - 1, wallSpanMillis: Self.wallSpanMillis)
        // What another tool reading schedule.json sees: the core's keys and the pack's, flat.
        struct Schedule: Decodable, Equatable {
            var scenarioName: String
            var seed: UInt64
            var deviceDurationSeconds: Int
            var wallSpanMillis: Int
            var faults: [PlannedFault]
            var sessions: [PlannedSession]
            var userActions: [PlannedUserAction]
        }
        let decoded = try JSONDecoder().decode(Schedule.self, from: try plan.jsonData())
        #expect(decoded == Schedule(
            scenarioName: plan.scenarioName, seed: plan.seed, deviceDurationSeconds: plan.deviceDurationSeconds,
            wallSpanMillis: plan.wallSpanMillis, faults: plan.faults, sessions: plan.sessions, userActions: plan.userActions))
        #expect(decoded.seed == UInt64.max - 1)
    }

    @Test("the workload and the nemesis draw independently")
    func independentStreams() throws {
        let scenario = try busy()
        var noFaults = scenario
        noFaults.nemesis.enabled = false
        var otherFaults = scenario
        otherFaults.nemesis.intervalMillis = 10...20
        let base = ScenarioPlan.make(scenario: scenario, seed: 9, wallSpanMillis: Self.wallSpanMillis)
        let quiet = ScenarioPlan.make(scenario: noFaults, seed: 9, wallSpanMillis: Self.wallSpanMillis)
        let other = ScenarioPlan.make(scenario: otherFaults, seed: 9, wallSpanMillis: Self.wallSpanMillis)
        #expect(quiet.faults.isEmpty)
        #expect(!base.faults.isEmpty)
        #expect(quiet.userActions == base.userActions)
        #expect(other.userActions == base.userActions)
        #expect(other.faults != base.faults)
    }

    @Test("user actions: selectApps first, sessions sequential, violations and stops strictly inside", arguments: 0..<25)
    func workloadProperties(seed: Int) throws {
        let scenario = try busy()
        let plan = ScenarioPlan.make(scenario: scenario, seed: UInt64(seed), wallSpanMillis: Self.wallSpanMillis)
        let workload = scenario.workload

        #expect(plan.userActions.first == PlannedUserAction(atDeviceOffsetSeconds: 0, action: .selectApps(apps: workload.blockedApps)))
        #expect(plan.userActions.filter { if case .selectApps = $0.action { true } else { false } }.count == 1)
        let offsets = plan.userActions.map(\.atDeviceOffsetSeconds)
        #expect(offsets == offsets.sorted())
        #expect(!plan.sessions.isEmpty)

        var previousEnd = -Double.infinity
        for (index, session) in plan.sessions.enumerated() {
            #expect(session.sessionId == "s-\(seed)-\(index + 1)")
            #expect(workload.sessionDurationMinutes.contains(session.durationMinutes))
            let gapSeconds = session.startDeviceOffsetSeconds - max(previousEnd, 0)
            #expect(gapSeconds >= Double(workload.gapMinutes.lowerBound * 60))
            #expect(gapSeconds <= Double(workload.gapMinutes.upperBound * 60))
            #expect(session.endDeviceOffsetSeconds <= Double(scenario.durationSeconds))
            previousEnd = session.endDeviceOffsetSeconds

            let actions = plan.userActions.filter { $0.action.sessionId == session.sessionId }
            let start = try #require(actions.first)
            #expect(start == PlannedUserAction(
                atDeviceOffsetSeconds: session.startDeviceOffsetSeconds,
                action: .startSession(sessionId: session.sessionId, durationMinutes: session.durationMinutes)
            ))
            let insideFrom = session.startDeviceOffsetSeconds + 60
            let insideTo = session.endDeviceOffsetSeconds - 60
            let violations = actions.filter(\.action.isViolation)
            #expect(violations.count == session.violationCount)
            #expect(violations.count <= workload.maxViolationsPerSession)
            for violation in violations {
                #expect(violation.atDeviceOffsetSeconds > insideFrom)
                #expect(violation.atDeviceOffsetSeconds < insideTo)
                switch violation.action {
                case .openBlockedApp(let app, _), .pressShieldButton(let app, _):
                    #expect(workload.blockedApps.contains(app))
                default:
                    Issue.record("not a violation: \(violation.action)")
                }
                if let stop = session.stopDeviceOffsetSeconds {
                    #expect(violation.atDeviceOffsetSeconds < stop)
                }
            }
            let stops = actions.filter { if case .stopSession = $0.action { true } else { false } }
            #expect(stops.map(\.atDeviceOffsetSeconds) == (session.stopDeviceOffsetSeconds.map { [$0] } ?? []))
            for stop in stops {
                #expect(stop.atDeviceOffsetSeconds > insideFrom && stop.atDeviceOffsetSeconds < insideTo)
            }
        }
        // Every non-selectApps action belongs to a planned session, but the final return to the host.
        let ids = Set(plan.sessions.map(\.sessionId))
        #expect(plan.userActions.dropFirst().allSatisfy { a in
            if case .openHost(nil) = a.action { return true }
            return a.action.sessionId.map(ids.contains) == true
        })
        // The user returns to the host at most once without a session, and the plan stays sorted.
        #expect(plan.userActions.filter { $0.action == .openHost(sessionId: nil) }.count == (plan.sessions.isEmpty ? 0 : 1))
        #expect(zip(plan.userActions, plan.userActions.dropFirst()).allSatisfy { $0.atDeviceOffsetSeconds <= $1.atDeviceOffsetSeconds })
    }

    @Test("over many seeds the workload uses every kind, hand stops and clean sessions")
    func workloadCoverage() throws {
        let scenario = try busy()
        var kinds = Set<String>()
        var stopped = 0
        var clean = 0
        for seed in 0..<20 {
            let plan = ScenarioPlan.make(scenario: scenario, seed: UInt64(seed), wallSpanMillis: Self.wallSpanMillis)
            for action in plan.userActions {
                switch action.action {
                case .openBlockedApp: kinds.insert("open")
                case .pressShieldButton: kinds.insert("press")
                default: break
                }
            }
            stopped += plan.sessions.filter { $0.stopDeviceOffsetSeconds != nil }.count
            clean += plan.sessions.filter { $0.violationCount == 0 }.count
        }
        #expect(kinds == ["open", "press"])
        #expect(stopped > 0)
        #expect(clean > 0)
    }

    @Test("faults: sorted, inside the span, only listed targets, never overlapping on one target", arguments: 0..<25)
    func faultProperties(seed: Int) throws {
        var scenario = try busy()
        scenario.nemesis.targets = ["host-app", "monitor-extension"]
        let plan = ScenarioPlan.make(scenario: scenario, seed: UInt64(seed), wallSpanMillis: Self.wallSpanMillis)
        let nemesis = scenario.nemesis
        #expect(!plan.faults.isEmpty)
        let times = plan.faults.map(\.atWallOffsetMillis)
        #expect(times == times.sorted())
        var busyUntil: [String: Int] = [:]
        var previous = 0
        for fault in plan.faults {
            #expect(fault.atWallOffsetMillis > 0)
            #expect(fault.atWallOffsetMillis - previous >= nemesis.intervalMillis.lowerBound)
            previous = fault.atWallOffsetMillis
            #expect(fault.endWallOffsetMillis <= Self.wallSpanMillis)
            #expect(nemesis.targets.contains(fault.target))
            switch fault.kind {
            case .stop: #expect(nemesis.stopMillis.contains(fault.holdMillis))
            case .kill, .term: #expect(nemesis.restartDelayMillis.contains(fault.holdMillis))
            }
            #expect(fault.atWallOffsetMillis >= busyUntil[fault.target, default: 0])
            busyUntil[fault.target] = fault.endWallOffsetMillis
        }
    }

    /// The streams of one seed are different sequences: the workload's and the nemesis's draws
    /// must not be the same numbers (a fault would land on every user action's beat).
    @Test("one seed, two streams: different sequences; an equal-bound range always gives its value")
    func streamsDifferAndEqualBoundsHold() {
        var workload = SeededGenerator(seed: 9, stream: ScenarioPlan.workloadStream)
        var nemesis = SeededGenerator(seed: 9, stream: ScenarioPlan.nemesisStream)
        let a = (0..<8).map { _ in workload.next() }
        let b = (0..<8).map { _ in nemesis.next() }
        #expect(Set(a).isDisjoint(with: b))
        var g = SeededGenerator(seed: 3)
        #expect((0..<50).allSatisfy { _ in g.int(in: 100...100) == 100 })
        #expect((0..<50).allSatisfy { _ in g.weightedIndex([0, 2, 0]) == 1 })
        #expect(g.weightedIndex([0, 0]) == nil)
        #expect((0..<50).allSatisfy { _ in !g.chance(0) && g.chance(1) })
    }

    /// Under virtual time the nemesis's wall-millisecond settings are scaled by the clock rate to
    /// device milliseconds: the same fault density per device hour as at that fixed rate. (Gaps
    /// have no upper bound: a draw whose target is busy is skipped.)
    @Test("virtual time: faults in device milliseconds, spaced by the settings times the rate")
    func virtualFaultsAreScaledByTheRate() throws {
        var scenario = try busy()
        scenario.clock.mode = .virtual
        scenario.durationSeconds = 3 * 3600
        let rate = scenario.clock.rate
        let plan = ScenarioPlan.make(scenario: scenario, seed: 4)
        #expect(plan.wallSpanMillis == 0)
        #expect(plan.faults.count > 10)
        var previous = 0
        for fault in plan.faults {
            #expect(fault.timeBase == .device)
            let gap = fault.atOffsetMillis - previous
            #expect(Double(gap) >= Double(scenario.nemesis.intervalMillis.lowerBound) * rate - 1, "gap \(gap)")
            previous = fault.atOffsetMillis
        }
        #expect(plan.faults.last.map { $0.atOffsetMillis + $0.holdMillis <= 3 * 3600 * 1000 } == true)
    }

    @Test("fault kinds follow the weights: a zero weight never appears")
    func faultWeights() throws {
        var scenario = try busy()
        scenario.nemesis.weights = Scenario.FaultWeights(kill: 1, term: 0, stop: 1)
        var kinds: [FaultKind: Int] = [:]
        for seed in 0..<10 {
            for fault in ScenarioPlan.make(scenario: scenario, seed: UInt64(seed), wallSpanMillis: 60_000).faults {
                kinds[fault.kind, default: 0] += 1
            }
        }
        #expect(kinds[.term] == nil)
        #expect(kinds[.kill, default: 0] > 100)
        #expect(kinds[.stop, default: 0] > 100)
    }

    @Test("no faults when the nemesis is disabled or the span is empty")
    func noFaults() throws {
        var scenario = try busy()
        #expect(ScenarioPlan.make(scenario: scenario, seed: 3, wallSpanMillis: 0).faults.isEmpty)
        scenario.nemesis.enabled = false
        #expect(ScenarioPlan.make(scenario: scenario, seed: 3, wallSpanMillis: Self.wallSpanMillis).faults.isEmpty)
    }

    @Test("a duration override replaces the scenario's device duration")
    func durationOverride() throws {
        let scenario = try bundled()
        let short = ScenarioPlan.make(scenario: scenario, seed: 5, durationOverride: .seconds(1800), wallSpanMillis: 1000)
        #expect(short.deviceDurationSeconds == 1800)
        #expect(short.sessions.allSatisfy { $0.endDeviceOffsetSeconds <= 1800 })
        let long = ScenarioPlan.make(scenario: scenario, seed: 5, durationOverride: .seconds(48 * 3600), wallSpanMillis: 1000)
        #expect(long.deviceDurationSeconds == 48 * 3600)
        #expect(long.sessions.count > ScenarioPlan.make(scenario: scenario, seed: 5, wallSpanMillis: 1000).sessions.count)
        // A duration too short for any session still selects the apps, and nothing else.
        let tiny = ScenarioPlan.make(scenario: scenario, seed: 5, durationOverride: .seconds(60), wallSpanMillis: 1000)
        #expect(tiny.sessions.isEmpty)
        #expect(tiny.userActions.count == 1)
    }

    @Test("the bundled scenario plans a few sessions and a fault every ~80 ms")
    func bundledPlanShape() throws {
        let scenario = try bundled()
        let wallSpanMillis = Int(Double(scenario.durationSeconds) / scenario.clock.rate * 1000)
        let plan = ScenarioPlan.make(scenario: scenario, seed: 1, wallSpanMillis: wallSpanMillis)
        #expect((3...9).contains(plan.sessions.count))
        #expect((60...300).contains(plan.faults.count))
    }
}
