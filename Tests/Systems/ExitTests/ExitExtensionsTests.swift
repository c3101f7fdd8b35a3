import AppGroup
import Exit
import SystemKit
import Testing

/// The hardened extensions' machines (as-written runs the seed's own classes, exercised by the
/// scenario runs in ExitPackTests).
@Suite(.timeLimit(.minutes(1))) struct ExitExtensionsTests {
    static let apps: PropertyListValue = .string("[\"a\",\"b\"]")

    @Test func theShieldSaysAccessGrantedOnlyInsideTheWindowWithTheSecondsLeft() {
        let store: [String: PropertyListValue] = [ExitKeys.unlockTimestamp: .real(1_000), ExitKeys.clarityScore: .integer(70)]
        #expect(HardenedShieldConfiguration.text(now: 1_015.5, store: store) == ShieldText(title: "Access Granted", subtitle: "44s remaining"))
        #expect(HardenedShieldConfiguration.text(now: 1_060, store: store).title == "Locked")
        #expect(HardenedShieldConfiguration.text(now: 999, store: store).title == "Locked", "a timestamp ahead of the clock grants nothing")
        #expect(HardenedShieldConfiguration.text(now: 2_000, store: store) == ShieldText(title: "Locked", subtitle: "Clarity 70% · main_character", primaryButton: "Begin Breathing"))
        #expect(HardenedShieldConfiguration.text(now: 2_000, store: [:]).subtitle == "Clarity 100% · oracle", "§3.1: a missing score is 100")
    }

    @Test func aTapWritesTheAppAndTheFlagInOneWriteANewValueEachTimeAndKeepsTheShield() {
        let effects = HardenedShieldAction.handle(action: .primaryButtonPressed, token: "tok", now: 5)
        #expect(effects.first == .setDefaults([.set(ExitKeys.blockedApp, .string("tok@5.0")), .set(ExitKeys.interventionRequested, .bool(true))], atomic: true))
        #expect(effects.last == .respond(.none))
        #expect(HardenedShieldAction.handle(action: .primaryButtonPressed, token: "tok", now: 6).first != effects.first)
        #expect(HardenedShieldAction.handle(action: .secondaryButtonPressed, token: "tok", now: 5) == [.respond(.none)])
    }

    @Test func theMonitorBeatsAtEveryCallAndReshieldsOnlyAfterTheWindow() {
        let inWindow: [String: PropertyListValue] = [ExitKeys.unlockTimestamp: .real(1_000), ExitKeys.monitoredApps: Self.apps]
        let during = HardenedMonitor.handle(.intervalDidStart(activity: "exit_unlock"), now: 1_030, store: inWindow)
        #expect(during == [.setDefaults([.set(ExitKeys.extensionHeartbeat, .real(1_030))], atomic: true)])
        let after = HardenedMonitor.handle(.intervalDidEnd(activity: "exit_unlock"), now: 1_060, store: inWindow)
        #expect(after.first == .applyShields(["a", "b"]))
        #expect(after.last == .setDefaults([.set(ExitKeys.extensionHeartbeat, .real(1_060))], atomic: true))
        // Only registry keys: the heartbeat.
        for case .setDefaults(let writes, _) in after { #expect(writes.allSatisfy { ExitRegistry.allows(.monitor, toWrite: $0.key) }) }
    }
}
