@testable import FocusPledgePack
import Foundation
import Testing
@testable import HarnessKit

@Suite("Scenario files", .timeLimit(.minutes(1)))
struct ScenarioParserTests {
    @Test("the bundled focuspledge.yaml parses to what it says")
    func bundledScenario() throws {
        let scenario = try ScenarioParser.load(path: bundledScenarioPath())
        #expect(scenario.name == "focuspledge")
        #expect(scenario.system.id == "focuspledge")
        #expect(scenario.variants == [ScenarioVariant.asWritten, .hardened])
        #expect(scenario.clock.rate == 900)
        #expect(scenario.clock.start == Date(timeIntervalSince1970: 1_771_315_200))  // 2026-02-17T08:00:00Z
        #expect(scenario.clock.timeZone == "Europe/Berlin")
        #expect(scenario.durationSeconds == 3 * 3600)
        // The CI budget: roughly 12 s of wall time per run.
        #expect(Double(scenario.durationSeconds) / scenario.clock.rate == 12)
        #expect(scenario.workload.blockedApps == ["com.social.feed", "com.video.shorts"])
        #expect(scenario.workload.sessionDurationMinutes == 15...45)
        #expect(scenario.workload.gapMinutes == 2...10)
        #expect(scenario.workload.violationProbability == 0.5)
        #expect(scenario.workload.violationKinds == [ViolationKind.openBlockedApp, .pressShieldButton])
        #expect(scenario.workload.maxViolationsPerSession == 2)
        #expect(scenario.workload.stopSessionProbability == 0)
        #expect(scenario.nemesis.enabled)
        #expect(scenario.nemesis.intervalMillis == 40...120)
        #expect(scenario.nemesis.weights == Scenario.FaultWeights(kill: 0.5, term: 0.1, stop: 0.4))
        #expect(scenario.nemesis.stopMillis == 20...250)
        #expect(scenario.nemesis.restartDelayMillis == 10...400)
        #expect(scenario.nemesis.targets == focusPledgeTargets)
        #expect(scenario.focusPledge.staleAfterMinutes == 15)
    }

    @Test("left-out keys take the documented defaults; no nemesis block means no faults")
    func defaults() throws {
        let scenario = try ScenarioParser.parse(yaml: minimalScenarioYAML, file: "test.yaml")
        #expect(scenario.variants == [ScenarioVariant.asWritten, .hardened])
        #expect(scenario.clock.rate == 600)
        #expect(scenario.clock.timeZone == "UTC")
        #expect(scenario.durationSeconds == 7200)
        #expect(scenario.workload.sessionDurationMinutes == 20...60)
        #expect(scenario.workload.gapMinutes == 2...15)
        #expect(scenario.workload.maxViolationsPerSession == 1)
        #expect(!scenario.nemesis.enabled)
        #expect(scenario.focusPledge.staleAfterMinutes == 15)
    }

    @Test("a nemesis block with only some action weights gives the others 0")
    func partialWeights() throws {
        let scenario = try ScenarioParser.parse(yaml: minimalScenarioYAML + "\nnemesis: { actions: { stop: 2 } }", file: "t")
        #expect(scenario.nemesis.enabled)
        #expect(scenario.nemesis.weights == Scenario.FaultWeights(kill: 0, term: 0, stop: 2))
    }

    @Test(
        "durations",
        arguments: [
            ("90s", 90), ("15m", 900), ("4h", 14_400), ("1h30m", 5400), ("2m30s", 150), ("1h30m15s", 5415),
            ("5400", 5400), (" 10m ", 600), ("0s", 0), ("1d", 86_400), ("1d12h", 129_600), ("366d", 31_622_400),
        ]
    )
    func durations(text: String, seconds: Int) {
        #expect(ScenarioDuration.seconds(from: text) == seconds)
    }

    @Test("not durations", arguments: ["", "h", "1x", "1m1h", "1h1h", "1h30", "-5m", "1.5h", "m30", "99999999999999h", "1 h", "1h1d", "367d"])
    func notDurations(text: String) {
        #expect(ScenarioDuration.seconds(from: text) == nil)
    }

    @Test("a duration written as a YAML number is seconds")
    func numericDuration() throws {
        let yaml = minimalScenarioYAML.replacingOccurrences(of: "duration: 2h", with: "duration: 5400")
        #expect(try ScenarioParser.parse(yaml: yaml, file: "t").durationSeconds == 5400)
    }

    @Test("an unquoted ISO start time is read the same as a quoted one")
    func unquotedStart() throws {
        let quoted = try ScenarioParser.parse(yaml: minimalScenarioYAML + "\nclock: { start: \"2026-03-01T10:00:00+01:00\" }", file: "t")
        let unquoted = try ScenarioParser.parse(yaml: minimalScenarioYAML + "\nclock: { start: 2026-03-01T10:00:00+01:00 }", file: "t")
        #expect(quoted.clock.start == Date(timeIntervalSince1970: 1_772_355_600))
        #expect(unquoted.clock.start == quoted.clock.start)
    }

    @Test("the variant to run: the first listed by default, a listed one by name, anything else an error")
    func variantSelection() throws {
        let scenario = try ScenarioParser.parse(yaml: minimalScenarioYAML + "\nvariants: [hardened]", file: "t")
        #expect(try scenario.variant(named: nil) == .hardened)
        #expect(try scenario.variant(named: "hardened") == .hardened)
        #expect(throws: ScenarioError.self) { try scenario.variant(named: "as-written") }
        #expect(throws: ScenarioError.self) { try scenario.variant(named: "softened") }
    }

    /// `[min, max]` allows `min == max` ("always 100 ms"): a `<` where `<=` belongs refused it.
    @Test("an equal-bound range [n, n] is a range of one value, in the core's sections and the pack's")
    func equalBoundRange() throws {
        let yaml = """
            name: tiny
            system: focuspledge
            duration: 2h
            workload:
              blockedApps: [com.social.feed]
              sessions: { durationMinutes: [20, 20], gapMinutes: [0, 0] }
            nemesis:
              intervalMillis: [100, 100]
              stopMillis: [0, 0]
              restartDelayMillis: [250, 250]
            """
        let scenario = try ScenarioParser.parse(yaml: yaml, file: "t")
        #expect(scenario.nemesis.intervalMillis == 100...100)
        #expect(scenario.nemesis.stopMillis == 0...0)
        #expect(scenario.nemesis.restartDelayMillis == 250...250)
        #expect(scenario.workload.sessionDurationMinutes == 20...20)
        #expect(scenario.workload.gapMinutes == 0...0)
        // …and one past it is still refused, naming both bounds.
        let error = parseError(yaml.replacingOccurrences(of: "[100, 100]", with: "[101, 100]"))
        #expect(error?.description.contains("nemesis.intervalMillis: min 101 is greater than max 100") == true, "\(String(describing: error))")
    }

    @Test("an error is one line: file:line:column: message")
    func errorFormat() {
        let error = ScenarioError(file: "a.yaml", line: 3, column: 7, message: "bad\nthing")
        #expect(error.description == "a.yaml:3:7: bad thing")
        #expect(ScenarioError(file: "a.yaml", message: "gone").description == "a.yaml: gone")
    }
}

@Suite("Scenario file errors carry file:line:column", .timeLimit(.minutes(1)))
struct ScenarioErrorLocationTests {
    @Test("unknown top-level key")
    func unknownTopLevelKey() throws {
        let error = try #require(parseError(minimalScenarioYAML + "\nnemisis: {}"))
        #expect(error.file == "test.yaml")
        #expect(error.line == 6)
        #expect(error.column == 1)
        #expect(error.message.contains("unknown key 'nemisis'"))
        #expect(error.description.hasPrefix("test.yaml:6:1: "))
    }

    @Test("unknown nested key names its path")
    func unknownNestedKey() throws {
        let yaml = """
        name: tiny
        system: focuspledge
        duration: 2h
        workload:
          blockedApps: [com.social.feed]
          sessions:
            durationMinutes: [20, 30]
            gapMinute: [1, 2]
        """
        let error = try #require(parseError(yaml))
        #expect(error.line == 8)
        #expect(error.column == 5)
        #expect(error.message.contains("'workload.sessions.gapMinute'"))
        #expect(error.message.contains("gapMinutes"))
    }

    @Test("wrong type: a quoted number is a string")
    func quotedNumber() throws {
        let error = try #require(parseError(minimalScenarioYAML + "\nclock:\n  rate: \"600\""))
        #expect(error.line == 7)
        #expect(error.column == 9)
        #expect(error.message.contains("clock.rate: expected a number"))
    }

    @Test("wrong type: a mapping where a list is expected")
    func mappingForList() throws {
        let yaml = """
        name: tiny
        system: focuspledge
        duration: 2h
        workload:
          blockedApps: { a: b }
        """
        let error = try #require(parseError(yaml))
        #expect(error.line == 5)
        #expect(error.message.contains("workload.blockedApps: expected a list of strings, got a mapping"))
    }

    @Test("wrong type: a string where a boolean is expected")
    func stringForBool() throws {
        let error = try #require(parseError(minimalScenarioYAML + "\nnemesis:\n  enabled: maybe"))
        #expect(error.line == 7)
        #expect(error.message.contains("nemesis.enabled: expected true or false, got the string \"maybe\""))
    }

    @Test("bad duration")
    func badDuration() throws {
        let yaml = minimalScenarioYAML.replacingOccurrences(of: "duration: 2h", with: "duration: 2 hours")
        let error = try #require(parseError(yaml))
        #expect(error.line == 3)
        #expect(error.column == 11)
        #expect(error.message.contains("bad duration '2 hours'"))
    }

    @Test("negative and zero durations")
    func negativeDuration() throws {
        let negative = try #require(parseError(minimalScenarioYAML.replacingOccurrences(of: "duration: 2h", with: "duration: -5")))
        #expect(negative.line == 3)
        #expect(negative.message.contains("must not be negative"))
        let zero = try #require(parseError(minimalScenarioYAML.replacingOccurrences(of: "duration: 2h", with: "duration: 0s")))
        #expect(zero.line == 3)
        #expect(zero.message.contains("longer than 0"))
    }

    @Test("bad range: min greater than max")
    func rangeMinAboveMax() throws {
        let yaml = minimalScenarioYAML + """

        nemesis:
          enabled: true
          stopMillis: [300, 250]
        """
        let error = try #require(parseError(yaml))
        #expect(error.line == 8)
        #expect(error.column == 15)
        #expect(error.message == "nemesis.stopMillis: min 300 is greater than max 250")
    }

    /// The max is held to the key's bounds like the min: a SIGSTOP of 20 minutes (or a session of
    /// 8 days) is refused at its own element, not planned.
    @Test("bad range: max above the key's bound, in the core's keys and the pack's")
    func rangeMaxAboveBound() throws {
        let stop = try #require(parseError(minimalScenarioYAML + "\nnemesis:\n  stopMillis:\n    - 20\n    - 1200000"))
        #expect(stop.line == 9)  // the element itself
        #expect(stop.message == "nemesis.stopMillis max: must be in 0...600000, got 1200000")
        let session = try #require(parseError(minimalScenarioYAML + "\n  sessions: { durationMinutes: [20, 11520] }"))
        #expect(session.message.contains("must be in 3...10080, got 11520"), "\(session.message)")
    }

    @Test("bad range: wrong length, negative element, non-numbers")
    func rangeShapes() throws {
        let three = try #require(parseError(minimalScenarioYAML + "\nnemesis:\n  intervalMillis: [1, 2, 3]"))
        #expect(three.line == 7)
        #expect(three.message.contains("list of 3"))

        let negative = try #require(parseError(minimalScenarioYAML + "\nnemesis:\n  restartDelayMillis:\n    - -10\n    - 20"))
        #expect(negative.line == 8)  // the element itself
        #expect(negative.message.contains("must not be negative"))

        let scalar = try #require(parseError(minimalScenarioYAML + "\nnemesis:\n  stopMillis: 20"))
        #expect(scalar.line == 7)
        #expect(scalar.message.contains("[min, max]"))
    }

    @Test("sessions shorter than 3 minutes leave no room for violations")
    func sessionTooShort() throws {
        let yaml = minimalScenarioYAML + "\n  sessions: { durationMinutes: [2, 30] }"
        let error = try #require(parseError(yaml))
        #expect(error.line == 6)
        #expect(error.message.contains("must be in 3...10080, got 2"))
    }

    @Test("probability above 1")
    func probabilityAboveOne() throws {
        let error = try #require(parseError(minimalScenarioYAML + "\n  stopSessionProbability: 1.5"))
        #expect(error.line == 6)
        #expect(error.message.contains("at most 1"))
    }

    @Test("unknown system names the known ones")
    func unknownSystem() throws {
        let yaml = minimalScenarioYAML.replacingOccurrences(of: "system: focuspledge", with: "system: screenzen")
        let error = try #require(parseError(yaml))
        #expect(error.line == 2)
        #expect(error.column == 9)
        #expect(error.message.contains("unknown system \"screenzen\"; known: focuspledge"))
    }

    @Test("unknown variant, violation kind and target")
    func unknownEnums() throws {
        let variant = try #require(parseError(minimalScenarioYAML + "\nvariants: [hardened, softened]"))
        #expect(variant.line == 6)
        #expect(variant.column == 22)
        #expect(variant.message.contains("unknown variant 'softened'"))

        let kind = try #require(parseError(minimalScenarioYAML + "\n  violations:\n    kinds: [uninstall_app]"))
        #expect(kind.line == 7)
        #expect(kind.message.contains("unknown violation kind 'uninstall_app'"))

        let target = try #require(parseError(minimalScenarioYAML + "\nnemesis:\n  targets: [host-app, springboard]"))
        #expect(target.line == 7)
        #expect(target.message.contains("unknown target 'springboard'"))
    }

    @Test("repeated list entries and duplicate keys")
    func repeats() throws {
        let app = try #require(parseError(minimalScenarioYAML.replacingOccurrences(of: "[com.social.feed]", with: "[a.b, c.d, a.b]")))
        #expect(app.line == 5)
        #expect(app.message.contains("'a.b' is listed twice"))

        let key = try #require(parseError(minimalScenarioYAML + "\nhost: { pollSeconds: 5 }\nhost: { pollSeconds: 6 }"))
        #expect(key.line == 6 || key.line == 7)
        #expect(key.message.contains("duplicate key"))
    }

    @Test("missing required key points at its mapping")
    func missingKey() throws {
        let yaml = """
        name: tiny
        system: focuspledge
        duration: 2h
        workload:
          sessions: { durationMinutes: [20, 30] }
        """
        let error = try #require(parseError(yaml))
        #expect(error.line == 5)
        #expect(error.message.contains("missing required key 'blockedApps' in workload"))
    }

    @Test("enabled nemesis with all weights zero")
    func zeroWeights() throws {
        let error = try #require(parseError(minimalScenarioYAML + "\nnemesis:\n  actions: { kill: 0, term: 0 }"))
        #expect(error.line == 7)
        #expect(error.message.contains("at least one weight must be positive"))
    }

    @Test("unknown time zone and bad start time")
    func clockValues() throws {
        let zone = try #require(parseError(minimalScenarioYAML + "\nclock:\n  timeZone: Mars/Olympus"))
        #expect(zone.line == 7)
        #expect(zone.message.contains("unknown time zone 'Mars/Olympus'"))

        let start = try #require(parseError(minimalScenarioYAML + "\nclock:\n  start: tomorrow"))
        #expect(start.line == 7)
        #expect(start.message.contains("clock.start"))
    }

    @Test("YAML syntax errors keep Yams's position")
    func syntaxError() throws {
        let error = try #require(parseError("name: tiny\nsystem: [focuspledge\nduration: 2h\n"))
        #expect(error.file == "test.yaml")
        let line = try #require(error.line)
        #expect((2...4).contains(line))
        #expect(error.message.hasPrefix("invalid YAML"))
    }

    @Test("empty file and non-mapping root")
    func emptyAndNonMapping() throws {
        let empty = try #require(parseError(""))
        #expect(empty.message.contains("empty"))
        let list = try #require(parseError("- a\n- b\n"))
        #expect(list.line == 1)
        #expect(list.message.contains("not a scenario: a scenario is a mapping of keys"))
        // A file that is no scenario at all is described, never echoed.
        let secret = try #require(parseError("password=hunter2 token=sk-live-123\n"))
        #expect(secret.message.contains("a single value of 34 bytes"))
        #expect(!secret.message.contains("hunter2"))
    }

    @Test("a missing file is an error naming the path")
    func missingFile() {
        #expect {
            _ = try ScenarioParser.load(path: "/nonexistent/scenario.yaml")
        } throws: { error in
            (error as? ScenarioError)?.description.hasPrefix("/nonexistent/scenario.yaml: cannot read") == true
        }
    }
}
