import Foundation
import HarnessKit
import History
import RallyPack
import Testing

/// Invariants declared in the scenario file, judged by the core (DeclaredInvariant): parsing with
/// positioned errors, and judging hand-made histories.
@Suite(.timeLimit(.minutes(1))) struct DeclaredInvariantTests {
    static let catalog = SystemCatalog([AnySystemPack(RallyPack())])

    static func scenario(_ invariants: String) throws(ScenarioError) -> Scenario {
        try ScenarioParser.parse(
            yaml: """
                name: r
                system: rally
                duration: 1h
                rally: { serves: 3 }
                invariants:
                \(invariants)
                """, file: "s.yaml", systems: catalog)
    }

    static func error(_ invariants: String) -> String {
        do {
            _ = try scenario(invariants)
            return "parsed"
        } catch { return error.description }
    }

    @Test func aFollowsRuleParses() throws {
        let s = try Self.scenario("""
              - name: returns-won
                follows:
                  when: { process: returner, write: returned }
                  then: { process: player, event: rally_won, field: ball, }
                  chance: player
                  withinSeconds: 600
              - name: no-fatal
                never: { process: player, log: fatal }
            """)
        #expect(s.declaredInvariants.count == 2)
        #expect(s.declaredInvariants[0].follows?.when == .init(process: "returner", write: "returned"))
        #expect(s.declaredInvariants[0].follows?.then == .init(process: "player", event: "rally_won", field: "ball"))
        #expect(s.declaredInvariants[0].follows?.chance == "player" && s.declaredInvariants[0].follows?.withinSeconds == 600)
        #expect(s.declaredInvariants[1].never == .init(process: "player", log: "fatal"))
        // `sameValue` on `then` or on `follows`, not both.
        let onThen = try Self.scenario("  - name: x\n    follows: { when: { process: returner, write: returned }, then: { process: player, event: rally_won, field: ball, sameValue: true } }")
        #expect(onThen.declaredInvariants[0].follows?.sameValue == true)
        #expect(Self.error("  - name: x\n    follows: { when: { process: returner, write: returned }, then: { process: player, event: w, field: b, sameValue: true }, sameValue: true }").contains("given twice"))
    }

    @Test func aRuleThatCanNeverApplyIsAPositionedError() {
        #expect(Self.error("  - name: x\n    never: { process: ghost, event: e }").hasPrefix("s.yaml:7:23: invariants[0].never.process"))
        #expect(Self.error("  - name: x\n    never: { process: ghost, event: e }").contains("rally has no process \"ghost\""))
        #expect(Self.error("  - name: x\n    follows: { when: { process: player, event: a }, then: { process: player, event: b }, chance: returner }")
            .contains("\"returner\" is not an app of rally"))
        #expect(Self.error("  - name: every-return-won\n    never: { process: player, event: e }").contains("already an invariant of rally"))
        #expect(Self.error("  - name: x\n    never: { process: player, event: e, log: f }").contains("exactly one of write"))
        #expect(Self.error("  - name: x\n    never: { process: player, write: k, field: f }").contains("only an event has fields"))
        #expect(Self.error("  - name: x\n    follows: { when: { process: player, event: a }, then: { process: player, write: b }, sameValue: true }")
            .contains("both when and then need a value"))
        #expect(Self.error("  - name: x").contains("exactly one of follows"))
        #expect(Self.error("  - name: X!\n    never: { process: player, event: e }").contains("a-z 0-9 -"))
    }

    @Test func anUnavailableAppGroupNamesRolesOfTheSystem() throws {
        func parse(_ os: String) throws(ScenarioError) -> Scenario {
            try ScenarioParser.parse(yaml: "name: r\nsystem: rally\nduration: 1h\nrally: { serves: 3 }\nos: \(os)\n", file: "s.yaml", systems: Self.catalog)
        }
        #expect(try parse("{ appGroupUnavailable: [returner] }").os.appGroupUnavailable == ["returner"])
        do {
            _ = try parse("{ appGroupUnavailable: [ghost] }")
            Issue.record("a role rally does not have was accepted")
        } catch { #expect(error.description.contains("os.appGroupUnavailable: unknown role 'ghost'")) }
    }

    // MARK: Judging

    static func line(_ t: Double, _ process: String, _ event: String, _ fields: [String: String] = [:]) -> HistoryEvent {
        HistoryEvent(mono: Int64(t * 1000), t: 1_000 + t, process: process, pid: process == "harness" ? 1 : 2, event: event, fields: fields)
    }
    static func write(_ t: Double, _ process: String, _ key: String, _ value: String) -> HistoryEvent {
        line(t, process, "defaults_set", ["suite": "group.x", "keys": key, "v." + key: value])
    }
    static let rule = DeclaredInvariant(
        name: "every-return-won",
        follows: .init(when: .init(process: "returner", write: "returned"), then: .init(process: "player", write: "won"), sameValue: true, chance: "player"))

    @Test func aWhenAnsweredWithTheSameValueHolds() {
        let o = Self.rule.judge([Self.write(1, "returner", "returned", "2"), Self.write(2, "player", "won", "2")])
        #expect(o.violations.isEmpty && o.checkedCount == 1)
    }

    @Test func anAnswerWithAnotherValueOrBeforeTheWhenDoesNotCount() {
        let o = Self.rule.judge([
            Self.write(0, "player", "won", "2"), Self.write(1, "returner", "returned", "2"), Self.write(2, "player", "won", "3"),
            Self.line(3, "player", "launched"),
        ])
        #expect(o.violations.map(\.subject?.id) == ["2"])
        #expect(o.violations.first?.explanation.contains("returner's write of returned = 2 was not followed by player's write of won with the same value") == true)
    }

    @Test func withoutAChanceItIsNotJudgedAndWithOneItIs() {
        let noChance = Self.rule.judge([Self.write(1, "returner", "returned", "2")])
        #expect(noChance.violations.isEmpty && noChance.checkedCount == 0)
        let foreground = Self.rule.judge([Self.write(1, "returner", "returned", "2"), Self.line(5, "harness", "host_state", ["state": "foreground"])])
        #expect(foreground.violations.count == 1 && foreground.checkedCount == 1)
    }

    @Test func aDeadlineCountsOnlyAnswersInTime() {
        var rule = Self.rule
        rule.follows?.withinSeconds = 10
        rule.follows?.chance = nil
        #expect(rule.judge([Self.write(1, "returner", "returned", "2"), Self.write(5, "player", "won", "2")]).violations.isEmpty)
        let late = rule.judge([Self.write(1, "returner", "returned", "2"), Self.write(20, "player", "won", "2")])
        #expect(late.violations.first?.explanation.hasSuffix("within 10 s") == true)
    }

    @Test func neverFailsOnEachMatchingLine() {
        let rule = DeclaredInvariant(name: "no-fatal", never: .init(process: "player", log: "fatal"))
        let o = rule.judge([
            Self.line(1, "player", "os_log", ["message": "all fine"]), Self.line(2, "player", "os_log", ["message": "fatal: disk"]),
            Self.line(3, "returner", "os_log", ["message": "fatal elsewhere"]),
        ])
        #expect(o.violations.count == 1 && o.checkedCount == 1)
    }

    /// `once`: each value at most once — a value written twice is one violation naming both
    /// lines; a rule with nothing to count is a positioned error.
    @Test func onceFailsOnAValueSeenTwice() throws {
        let rule = DeclaredInvariant(name: "one-return-per-ball", once: .init(process: "returner", write: "returned"))
        let o = rule.judge([
            Self.write(1, "returner", "returned", "1"), Self.write(2, "returner", "returned", "2"), Self.write(3, "returner", "returned", "2"),
        ])
        #expect(o.checkedCount == 2)
        #expect(o.violations.map(\.subject?.id) == ["2"])
        #expect(o.violations.first?.explanation == "returner's write of returned = 2 happened 2 times (the scenario declares each value at most once)")
        #expect(o.violations.first?.relevantEvents.count == 2)
        let parsed = try Self.scenario("  - name: one-return-per-ball\n    once: { process: returner, write: returned }")
        #expect(parsed.declaredInvariants == [rule])
        #expect(Self.error("  - name: x\n    once: { process: returner, log: hi }").contains("s.yaml:7:11: invariants[0].once: needs a value to count"))
        #expect(Self.error("  - name: x\n    once: { process: returner, write: a }\n    never: { process: returner, log: b }").contains("give exactly one of follows"))
    }

    @Test func theRunStartedLineCarriesTheDeclarationsToCheck() {
        let started = Self.line(0, "harness", "run_started", [DeclaredInvariant.runStartedField: DeclaredInvariant.encode([Self.rule])])
        #expect(DeclaredInvariant.declared(in: [started]) == [Self.rule])
        var report = CheckReport(checker: "t", decided: true, results: [], violations: [], latencies: [])
        DeclaredInvariant.add(to: &report, [started, Self.write(1, "returner", "returned", "2"), Self.line(2, "player", "launched")])
        #expect(report.results.map(\.name) == ["every-return-won"] && report.violations.count == 1)
    }
}
