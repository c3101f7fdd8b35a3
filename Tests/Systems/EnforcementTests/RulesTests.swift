import Enforcement
import Foundation
import Testing

/// The rules engine: the effective mode (schedule + precedence) and the spec's formula.
@Suite(.timeLimit(.minutes(1))) struct RulesTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    /// 2026-03-02 09:00 in Berlin (08:00Z).
    static let nine = 1_772_438_400.0

    static func rules() -> Rules {
        Rules(
            selection: ["a", "b"],
            modes: [
                Mode(id: "focus", name: "Focus", apps: ["a", "b"], startMinute: 8 * 60, endMinute: 12 * 60, precedence: 1),
                Mode(id: "deep", name: "Deep", apps: ["a"], startMinute: 9 * 60 + 30, endMinute: 10 * 60, precedence: 2),
            ])
    }

    @Test func theEffectiveModeIsTheHighestPrecedenceOfThoseInTheirSchedule() {
        let r = Self.rules()
        #expect(r.effectiveMode(at: Self.nine, timeZone: Self.berlin)?.id == "focus")
        #expect(r.effectiveMode(at: Self.nine + 45 * 60, timeZone: Self.berlin)?.id == "deep")
        // The end is exclusive: at 10:00 the deep mode is over.
        #expect(r.effectiveMode(at: Self.nine + 60 * 60, timeZone: Self.berlin)?.id == "focus")
        #expect(r.effectiveMode(at: Self.nine + 3 * 3600, timeZone: Self.berlin) == nil)
    }

    @Test func shieldedAppsAreTheModesSelectedAppsLessTheActiveGrants() {
        var r = Self.rules()
        #expect(r.shieldedApps(at: Self.nine, timeZone: Self.berlin) == ["a", "b"])
        // The deep mode blocks a only: b is free while it is effective.
        #expect(r.shieldedApps(at: Self.nine + 45 * 60, timeZone: Self.berlin) == ["a"])
        r.grants = [Grant(id: "g", app: "a", startTs: Self.nine, endsTs: Self.nine + 300)]
        #expect(r.shieldedApps(at: Self.nine + 10, timeZone: Self.berlin) == ["b"])
        // "ends_ts > now": at the end the grant is over.
        #expect(r.shieldedApps(at: Self.nine + 300, timeZone: Self.berlin) == ["a", "b"])
        // An unselected app is never shielded.
        r.selection = ["b"]
        #expect(r.shieldedApps(at: Self.nine + 400, timeZone: Self.berlin) == ["b"])
    }

    @Test func anOverrideBeatsItsModesScheduleWhileItRunsAndPrecedenceStillPicks() {
        var r = Self.rules()
        // Focus (8-12) turned off at 9:00 for 10 minutes: no mode, nothing shielded; at its end focus is back.
        r.overrides = [Override(id: "o1", mode: "focus", on: false, startTs: Self.nine, endsTs: Self.nine + 600)]
        #expect(r.effectiveMode(at: Self.nine + 60, timeZone: Self.berlin) == nil)
        #expect(r.shieldedApps(at: Self.nine + 599, timeZone: Self.berlin) == [])
        #expect(r.effectiveMode(at: Self.nine + 600, timeZone: Self.berlin)?.id == "focus", "the end is exclusive, as a grant's")
        // Deep (9:30-10) turned on at 9:00: it wins by precedence; at 9:45 an off override of deep leaves focus.
        r.overrides = r.replacingOverride(Override(id: "o2", mode: "deep", on: true, startTs: Self.nine, endsTs: Self.nine + 3600))
        #expect(r.shieldedApps(at: Self.nine + 700, timeZone: Self.berlin) == ["a"])
        r.overrides = r.replacingOverride(Override(id: "o3", mode: "deep", on: false, startTs: Self.nine + 45 * 60, endsTs: Self.nine + 50 * 60))
        #expect(r.overrides.map(\.id) == ["o1", "o3"], "the latest override of a mode replaces its earlier one")
        #expect(r.effectiveMode(at: Self.nine + 46 * 60, timeZone: Self.berlin)?.id == "focus")
        // Not yet started: the schedule decides.
        #expect(r.effectiveMode(at: Self.nine + 20 * 60, timeZone: Self.berlin)?.id == "focus")
        // Focus turned on at 13:00, outside its window.
        r.overrides = [Override(id: "o4", mode: "focus", on: true, startTs: Self.nine + 4 * 3600, endsTs: Self.nine + 5 * 3600)]
        #expect(r.shieldedApps(at: Self.nine + 4 * 3600 + 1, timeZone: Self.berlin) == ["a", "b"])
        #expect(r.shieldedApps(at: Self.nine + 5 * 3600, timeZone: Self.berlin) == [])
    }

    @Test func aScheduleMayWrapPastMidnightAndEqualEndsMeanAllDay() {
        let night = Mode(id: "n", name: "N", apps: [], startMinute: 22 * 60, endMinute: 6 * 60, precedence: 0)
        #expect(night.contains(secondOfDay: 23 * 3600) && night.contains(secondOfDay: 3600) && !night.contains(secondOfDay: 12 * 3600))
        let all = Mode(id: "d", name: "D", apps: [], startMinute: 540, endMinute: 540, precedence: 0)
        #expect(all.contains(secondOfDay: 0) && all.contains(secondOfDay: 86_399))
    }

    @Test func aModeForRightNowStartsAtTheCurrentLocalMinute() {
        let m = Mode.starting(id: "f", name: "F", apps: ["a"], inMinutes: 0, lengthMinutes: 90, precedence: 1, now: Self.nine + 59, timeZone: Self.berlin)
        #expect(m.startMinute == 9 * 60 && m.endMinute == 10 * 60 + 30)
        #expect(Rules(selection: ["a"], modes: [m]).shieldedApps(at: Self.nine + 59, timeZone: Self.berlin) == ["a"])
    }

    @Test func theAppGroupFormRoundTripsAndGarbageReadsAsEmpty() {
        let r = Self.rules()
        let store = [
            EnforcementKeys.selection: Rules.encode(r.selection), EnforcementKeys.modes: Rules.encode(r.modes),
            EnforcementKeys.grants: Rules.encode([Grant(id: "g", app: "a", startTs: 1, endsTs: 2)]),
            EnforcementKeys.overrides: Rules.encode([Override(id: "o", mode: "focus", on: false, startTs: 1, endsTs: 2)]),
        ]
        let back = Rules(store: store)
        #expect(back.selection == r.selection && back.modes == r.modes && back.grants.count == 1)
        #expect(back.overrides == [Override(id: "o", mode: "focus", on: false, startTs: 1, endsTs: 2)])
        #expect(Rules(store: [EnforcementKeys.modes: .data(Data("nope".utf8)), EnforcementKeys.selection: .string("a")]) == Rules())
    }
}
