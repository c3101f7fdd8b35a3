import HarnessKit
import ScreenTimeModel
import SystemKit
import Pushin
@testable import PushinPack
import Testing

/// The pack's scenario keys and workload plan, without processes.
@Suite(.timeLimit(.minutes(1))) struct PushinPackTests {
    static let catalog = SystemCatalog([AnySystemPack(PushinPack())])

    static let minimal = """
        name: tiny
        system: pushin
        duration: 1h
        pushin:
          blockedApps: [com.social.feed]
          presses: 5
        """

    @Test func everyBundledScenarioParses() throws {
        for name in [
            "pushin", "pushin-field", "pushin-denied", "pushin-seed-shield-triggers-notification", "pushin-seed-tap-opens-workout",
            "pushin-seed-emergency-skips-notification",
        ] {
            let s = try Scenario.load(path: "Sources/Systems/Pushin/scenarios/\(name).yaml", systems: Self.catalog)
            #expect(s.name == name)
        }
    }

    /// What the user sees, for a move: the notifications on the lock screen.
    final class Screen: UserScreen {
        var now = 1_772_438_400.0
        var shieldedApplications: Set<String> = []
        var deliveredNotifications: [String]
        init(_ notifications: [String]) { deliveredNotifications = notifications }
        func isMonitored(_ activity: String) -> Bool { false }
    }

    /// A move is data: the pack says what the user does, the core records it and performs it. The
    /// user taps the newest notification the lock screen shows, and the move's line says which;
    /// with none there, the line says so and nothing is tapped.
    @Test func aNotificationTapIsTheNewestOnTheLockScreenAndTheLineSaysWhich() {
        let pack = PushinPack(), tap = PushinPack.Action(kind: .tapNotification, press: 3, tapAction: "START_WORKOUT")
        #expect(pack.move(tap, seeing: Screen(["a", "b"])) == UserMove(
            "tap_notification", ["press": "3", "tapAction": "START_WORKOUT", "identifier": "b"],
            steps: [.tapNotification(identifier: "b", action: "START_WORKOUT")]))
        #expect(pack.move(tap, seeing: Screen([])) == UserMove("tap_notification", ["press": "3", "tapAction": "START_WORKOUT", "identifier": "-"], steps: []))
        let plain = PushinPack.Action(kind: .tapNotification, press: 1)
        #expect(pack.move(plain, seeing: Screen(["a"])).steps == [.tapNotification(identifier: "a", action: NotificationResponse.defaultAction)])
        // A press is the shield's button, never a call into an extension.
        #expect(pack.move(.init(kind: .pressEmergency, press: 2), seeing: Screen([])).steps == [.pressShield(.secondaryButtonPressed, label: ["press": "2"])])
    }

    @Test func badKeysAndValuesAreErrorsAtTheirPlace() {
        func error(_ yaml: String) -> String? {
            do {
                _ = try Scenario.parse(yaml: yaml, file: "t.yaml", systems: Self.catalog)
                return nil
            } catch { return "\(error)" }
        }
        #expect(error(Self.minimal + "\n  pressess: 3")?.contains("unknown key 'pushin.pressess'") == true)
        #expect(error(Self.minimal + "\n  tapProbability: 1.5")?.contains("t.yaml:") == true)
        #expect(error(Self.minimal.replacingOccurrences(of: "presses: 5", with: "presses: 0"))?.contains("presses") == true)
        #expect(error(Self.minimal.replacingOccurrences(of: "[com.social.feed]", with: "[]")) != nil)
        #expect(error(Self.minimal + "\n  gapSeconds: [30, 10]")?.contains("greater") == true)
    }

    static func plan(_ c: PushinConfiguration, seed: UInt64 = 1, seconds: Int = 3600) -> WorkloadPlan<PushinPack.Action, PushinPack.Summary> {
        var g = SeededGenerator(seed: seed, stream: 1)
        return PushinPack().plan(c, seed: seed, deviceMillis: seconds * 1000, generator: &g)
    }

    @Test func thePlanOnboardsFirstThenPressesAndFitsTheDuration() {
        let c = PushinConfiguration(blockedApps: ["a", "b"], presses: 50, gapSeconds: 60...120)
        let p = Self.plan(c)
        #expect(p.actions.first?.action.kind == .onboard)
        #expect(p.actions.first?.action.apps == ["a", "b"])
        #expect(p.actions.map(\.atDeviceOffsetSeconds) == p.actions.map(\.atDeviceOffsetSeconds).sorted())
        #expect(p.actions.allSatisfy { $0.atDeviceOffsetSeconds <= 3600 })
        let presses = p.actions.filter { $0.action.kind == .pressWorkout || $0.action.kind == .pressEmergency }
        #expect(presses.count == p.summary.workoutPresses + p.summary.emergencyPresses)
        #expect(presses.count > 5 && presses.count < 50, "an hour holds some, not all 50")
        // Each press follows its blocked app by 5 s.
        for press in presses {
            #expect(p.actions.contains { $0.action.kind == .openBlockedApp && $0.action.press == press.action.press
                && $0.atDeviceOffsetSeconds == press.atDeviceOffsetSeconds - 5 })
        }
        #expect(Self.plan(c) == p, "the same seed, the same plan")
        #expect(Self.plan(c, seed: 2) != p)
    }

    @Test func probabilitiesOfOneAndZeroAreObeyed() {
        let allEmergency = Self.plan(PushinConfiguration(presses: 10, emergencyProbability: 1, tapProbability: 1, laterProbability: 0))
        #expect(allEmergency.summary.workoutPresses == 0 && allEmergency.summary.emergencyPresses > 0)
        let taps = allEmergency.actions.filter { $0.action.kind == .tapNotification }
        #expect(taps.count == allEmergency.summary.emergencyPresses)
        #expect(taps.allSatisfy { $0.action.tapAction != PushinKeys.laterAction })
        let idle = Self.plan(PushinConfiguration(presses: 10, emergencyProbability: 0, tapProbability: 0, openHostProbability: 0))
        #expect(!idle.actions.contains { [.tapNotification, .openHost, .pressEmergency, .forceQuitHost].contains($0.action.kind) })
    }
}
