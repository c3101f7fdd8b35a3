import AppGroup
import Exit
import Foundation
import SystemKit
import Testing

/// The host machine by events and effects: the seed's lines as-written, each fix hardened.
@Suite(.timeLimit(.minutes(1))) struct ExitHostTests {
    static let requested: [String: PropertyListValue] = [ExitKeys.interventionRequested: .bool(true), ExitKeys.blockedApp: .string("tok")]

    @Test func asWrittenClearsTheFlagAndShowsTheInterventionFromMemoryOnly() {
        var host = ExitHost(variant: .asWritten)
        _ = host.handle(.launched(now: 100, day: "2026-03-02", store: [:], privateStore: [:]))
        let effects = host.handle(.pollTick(now: 101, day: "2026-03-02", store: Self.requested))
        #expect(effects == [
            .setDefaults([.set(ExitKeys.interventionRequested, .bool(false))], atomic: false),
            .trace("intervention_shown", ["app": "tok"]),
        ])
        // Killed and relaunched: the request is gone (the flag was cleared, the screen was memory).
        var relaunched = ExitHost(variant: .asWritten)
        #expect(!relaunched.handle(.launched(now: 110, day: "2026-03-02", store: [:], privateStore: [:])).contains { $0.isTrace("intervention_shown") })
    }

    /// §5.2's `saveSelectedApps`: the picker writes the `Data` of the bundle ids it can read from
    /// the tokens — none in the app — so as-written's `monitored_apps` is the Data of `[]`; hardened
    /// keeps §2.1's JSON string of the picked apps (it re-shields from it).
    @Test func asWrittenStoresThePickersEmptyBundleIdListAsDataHardenedTheAppsAsAString() {
        var w = ExitHost(variant: .asWritten)
        let asWritten = w.handle(.selectApps(["a", "b"]))
        #expect(asWritten.first == .setDefaults([.set(ExitKeys.monitoredApps, .data(Data("[]".utf8)))], atomic: false))
        #expect(asWritten.contains(.applyShields(["a", "b"])))
        var h = ExitHost(variant: .hardened)
        let hardened = h.handle(.selectApps(["a", "b"]))
        #expect(hardened.first == .setDefaults([.set(ExitKeys.monitoredApps, .string("[\"a\",\"b\"]"))], atomic: false))
        #expect(ExitHost.monitoredApps([ExitKeys.monitoredApps: .string("[\"a\",\"b\"]")]) == ["a", "b"])
    }

    @Test func hardenedNeverClearsTheShieldActionsFlagServesEachRequestOnceAndShowsItAgainAfterARelaunch() {
        var host = ExitHost(variant: .hardened)
        _ = host.handle(.launched(now: 100, day: "2026-03-02", store: [:], privateStore: [:]))
        let effects = host.handle(.pollTick(now: 101, day: "2026-03-02", store: Self.requested))
        #expect(!effects.contains { if case .setDefaults = $0 { return true } else { return false } }, "H7: the registry gives the flag to the ShieldAction")
        let keep = effects.firstIndex { if case .setPrivateDefaults = $0 { return true } else { return false } }
        let show = effects.firstIndex(of: .trace("intervention_shown", ["app": "tok"]))
        #expect(keep != nil && show != nil && keep! < show!, "H2: kept privately before it is shown")
        #expect(!host.handle(.pollTick(now: 102, day: "2026-03-02", store: Self.requested)).contains { $0.isTrace("intervention_shown") }, "served once")
        var next = Self.requested
        next[ExitKeys.blockedApp] = .string("tok@200")
        #expect(host.handle(.pollTick(now: 201, day: "2026-03-02", store: next)).contains(.trace("intervention_shown", ["app": "tok@200"])))
        var relaunched = ExitHost(variant: .hardened)
        let again = relaunched.handle(.launched(
            now: 110, day: "2026-03-02", store: Self.requested,
            privateStore: [
                ExitHost.PrivateKeys.pendingApp: .string("tok"), ExitHost.PrivateKeys.pendingSince: .real(101),
                ExitHost.PrivateKeys.lastResetDay: .string("2026-03-02"), ExitHost.PrivateKeys.servedRequest: .string("tok"),
            ]))
        #expect(again.contains(.trace("intervention_shown", ["app": "tok", "resumed": "true"])))
        #expect(relaunched.onScreen == "tok")
        #expect(!relaunched.handle(.pollTick(now: 111, day: "2026-03-02", store: Self.requested)).contains { $0.isTrace("intervention_shown") })
    }

    @Test func hardenedRelaunchedAfterTheUnlockLandedFinishesItInsteadOfAskingAgain() {
        var host = ExitHost(variant: .hardened)
        let effects = host.handle(.launched(
            now: 130, day: "2026-03-02", store: [ExitKeys.unlockTimestamp: .real(120), ExitKeys.monitoredApps: .string("[\"a\"]")],
            privateStore: [ExitHost.PrivateKeys.pendingApp: .string("tok"), ExitHost.PrivateKeys.pendingSince: .real(101), ExitHost.PrivateKeys.lastResetDay: .string("2026-03-02")]))
        #expect(effects.contains(.removeShields), "inside the window: the shield is lifted")
        #expect(!effects.contains { $0.isTrace("intervention_shown") })
        #expect(host.unlockedUntil == 180)
        // Finished once: no longer pending, so the next launch does not finish it again.
        #expect(effects.contains(.setPrivateDefaults([.remove(ExitHost.PrivateKeys.pendingApp), .remove(ExitHost.PrivateKeys.pendingSince)], atomic: true)))
        #expect(host.handle(.pollTick(now: 181, day: "2026-03-02", store: [ExitKeys.monitoredApps: .string("[\"a\"]")])).contains(.applyShields(["a"])))
    }

    @Test func completingWritesTheUnlockAndCountsTheDayAsWrittenKeyByKeyHardenedAtOnceAndLiftsTheShield() {
        for variant in ExitVariant.allCases {
            var host = ExitHost(variant: variant)
            _ = host.handle(.launched(now: 100, day: "2026-03-02", store: [:], privateStore: [ExitHost.PrivateKeys.lastResetDay: .string("2026-03-02")]))
            _ = host.handle(.pollTick(now: 101, day: "2026-03-02", store: Self.requested))
            let effects = host.handle(.breathingDone(now: 150, day: "2026-03-02", store: [ExitKeys.lastInterventionCount: .integer(2)]))
            #expect(effects.contains(.setDefaults([
                .set(ExitKeys.unlockTimestamp, .real(150)), .set(ExitKeys.lastInterventionCount, .integer(3)),
                .set(ExitKeys.clarityScore, .integer(80)), .set(ExitKeys.userLevel, .string("oracle")),
            ], atomic: variant == .hardened)))
            #expect(effects.contains(.removeShields) == (variant == .hardened), "only hardened lifts the shield (H3)")
            #expect(host.onScreen == nil)
        }
    }

    @Test func asWrittenResetsAtEveryTimeChangeHardenedOncePerNewDay() {
        var asWritten = ExitHost(variant: .asWritten)
        var hardened = ExitHost(variant: .hardened)
        _ = hardened.handle(.launched(now: 0, day: "2026-03-28", store: [:], privateStore: [:]))
        #expect(asWritten.handle(.significantTimeChange(now: 10, day: "2026-03-29", store: [:])).contains(.trace("daily_reset", ["day": "2026-03-29"])))
        #expect(asWritten.handle(.significantTimeChange(now: 20, day: "2026-03-28", store: [:])).contains(.trace("daily_reset", ["day": "2026-03-28"])))
        #expect(hardened.handle(.significantTimeChange(now: 10, day: "2026-03-29", store: [:])).contains(.trace("daily_reset", ["day": "2026-03-29"])))
        #expect(hardened.handle(.significantTimeChange(now: 20, day: "2026-03-28", store: [:])).isEmpty, "a day that comes again is not new")
        #expect(hardened.handle(.significantTimeChange(now: 30, day: "2026-03-29", store: [:])).isEmpty, "once per day")
    }

    @Test func hardenedKilledInsideAResetRedoesItOnlyIfTheAppGroupWriteDidNotLand() {
        typealias P = ExitHost.PrivateKeys
        var host = ExitHost(variant: .hardened)
        _ = host.handle(.launched(now: 0, day: "2026-03-28", store: [:], privateStore: [:]))
        // An unseen flag from the last reset is cleared first; the day is pending before the App
        // Group write and recorded after it.
        let effects = host.handle(.significantTimeChange(now: 10, day: "2026-03-29", store: [ExitKeys.dailyResetFlag: .bool(true)]))
        let clear = effects.firstIndex(of: .setDefaults([.set(ExitKeys.dailyResetFlag, .bool(false))], atomic: true))
        let pending = effects.firstIndex(of: .setPrivateDefaults([.set(P.resetPending, .string("2026-03-29"))], atomic: true))
        let write = effects.firstIndex { if case .setDefaults(let w, true) = $0 { return w.count == 3 } else { return false } }
        let done = effects.firstIndex(of: .setPrivateDefaults([.set(P.lastResetDay, .string("2026-03-29")), .remove(P.resetPending)], atomic: true))
        #expect(clear != nil && pending != nil && write != nil && done != nil)
        if let clear, let pending, let write, let done { #expect(clear < pending && pending < write && write < done) }
        // Relaunched with the day pending: the flag says whether the write landed.
        let pendingStore: [String: PropertyListValue] = [P.lastResetDay: .string("2026-03-28"), P.resetPending: .string("2026-03-29")]
        var landed = ExitHost(variant: .hardened)
        let afterLanded = landed.handle(.launched(now: 11, day: "2026-03-29", store: [ExitKeys.dailyResetFlag: .bool(true), ExitKeys.screenTimeToday: .integer(5)], privateStore: pendingStore))
        #expect(!afterLanded.contains { $0.isTrace("daily_reset") }, "landed: a second reset would erase the 5 minutes since")
        #expect(afterLanded.contains(.setPrivateDefaults([.set(P.lastResetDay, .string("2026-03-29")), .remove(P.resetPending)], atomic: true)))
        #expect(landed.lastResetDay == "2026-03-29")
        var notLanded = ExitHost(variant: .hardened)
        let afterLost = notLanded.handle(.launched(now: 11, day: "2026-03-29", store: [:], privateStore: pendingStore))
        #expect(afterLost.contains(.trace("daily_reset", ["day": "2026-03-29"])), "not landed: the day is reset now")
    }

    @Test func onlyAsWrittenJudgesTheHeartbeatAndOnlyWhenOlderThan300Seconds() {
        var asWritten = ExitHost(variant: .asWritten)
        let fresh = asWritten.handle(.becameActive(now: 1000, day: "d", store: [ExitKeys.extensionHeartbeat: .real(700)]))
        #expect(!fresh.contains { $0.isTrace("reinitialize_extensions") })
        let stale = asWritten.handle(.becameActive(now: 1000.5, day: "d", store: [ExitKeys.extensionHeartbeat: .real(700)]))
        #expect(stale.contains { $0.isTrace("reinitialize_extensions") })
        var hardened = ExitHost(variant: .hardened)
        _ = hardened.handle(.launched(now: 0, day: "d", store: [:], privateStore: [:]))
        #expect(!hardened.handle(.becameActive(now: 1000, day: "d", store: [:])).contains { $0.isTrace("reinitialize_extensions") })
    }
}

extension Effect {
    func isTrace(_ name: String) -> Bool {
        if case .trace(name, _) = self { return true }
        return false
    }
}
