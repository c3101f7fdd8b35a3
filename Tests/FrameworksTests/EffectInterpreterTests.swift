import AppGroup
import Foundation
import StandInRuntime
import SystemKit
import Testing

/// The one interpreter every pack's effects go through, on an `InMemoryDevice`: order, the death
/// budget (a process killed between two units of work), torn non-atomic writes, and failures
/// that are traced and handed back — never swallowed.
@Suite(.timeLimit(.minutes(1))) struct EffectInterpreterTests {
    struct Failure: Error, CustomStringConvertible { var description: String { "no monitoring here" } }

    static let three: [Effect] = [.postNotification("a"), .applyShields(["com.x"]), .postNotification("b")]

    @Test func withoutABudgetEveryEffectLandsInOrder() {
        let device = InMemoryDevice()
        let outcome = EffectInterpreter.perform(Self.three, on: device)
        #expect(outcome.complete && outcome.landed == Self.three && outcome.failures.isEmpty)
        #expect(device.notifications == ["a", "b"])
        #expect(device.shields == ["com.x"])
        #expect(device.traces(named: "shields_set") == [["apps": "com.x"]])
    }

    /// A budget of n: exactly n units land, then the process is dead; nothing after is carried out.
    @Test(arguments: 0...3)
    func theDeathBudgetLetsExactlyThatManyUnitsLand(budget n: Int) {
        let device = InMemoryDevice()
        var budget: Int? = n
        let outcome = EffectInterpreter.perform(Self.three, on: device, budget: &budget)
        #expect(outcome.landed == Array(Self.three.prefix(n)))
        #expect(outcome.complete == (n >= 3))
        #expect(budget == 0)
        #expect(device.notifications == ["a", "b"].filter { n >= ($0 == "a" ? 1 : 3) })
        #expect((device.shields != nil) == (n >= 2))
    }

    /// A non-atomic write is one unit per key (a process dies between keys, the landed prefix
    /// stays); an atomic one is one unit whatever its size.
    @Test func aNonAtomicWriteIsTornAtTheBudgetAndAnAtomicOneNever() {
        let writes: [DefaultsWrite] = [.set("k1", .integer(1)), .set("k2", .integer(2)), .set("k3", .integer(3))]
        #expect(Effect.setDefaults(writes, atomic: false).units == 3)
        #expect(Effect.setDefaults(writes, atomic: true).units == 1)
        let torn = InMemoryDevice()
        var budget: Int? = 2
        let outcome = EffectInterpreter.perform([.setDefaults(writes, atomic: false), .postNotification("after")], on: torn, budget: &budget)
        #expect(!outcome.complete)
        #expect(outcome.landed == [.setDefaults(Array(writes.prefix(2)), atomic: false)])
        #expect(torn.store == ["k1": .integer(1), "k2": .integer(2)])
        #expect(torn.notifications.isEmpty)
        let whole = InMemoryDevice()
        var one: Int? = 1
        let atomic = EffectInterpreter.perform([.setDefaults(writes, atomic: true), .postNotification("after")], on: whole, budget: &one)
        #expect(whole.store.count == 3)
        #expect(atomic.landed == [.setDefaults(writes, atomic: true)] && !atomic.complete)
        #expect(whole.notifications.isEmpty)
        // Dead before the first key: nothing of the write is reported as landed.
        let none = InMemoryDevice()
        var zero: Int? = 0
        #expect(EffectInterpreter.perform([.setDefaults(writes, atomic: false)], on: none, budget: &zero).landed.isEmpty)
        #expect(none.store.isEmpty)
    }

    /// A failed effect is traced with its error, reported back, and does not stop the effects after it.
    @Test func aFailureIsTracedAndHandedBackAndTheRestStillLand() {
        let device = InMemoryDevice()
        device.monitoringError = Failure()
        let start = Date(timeIntervalSince1970: 1_772_438_400)
        let effects: [Effect] = [
            .startMonitoring(activity: "focus", start: start, end: start.addingTimeInterval(1800), repeats: false), .postNotification("after"),
        ]
        let outcome = EffectInterpreter.perform(effects, on: device)
        #expect(outcome.complete && outcome.landed == effects)
        #expect(outcome.failures == [EffectFailure(effect: effects[0], error: "no monitoring here")])
        #expect(device.traces(named: "monitoring_error") == [["activity": "focus", "error": "no monitoring here"]])
        #expect(device.traces(named: "monitoring_started").isEmpty)
        #expect(device.notifications == ["after"])
        // The same effect without the error: registered and traced as started.
        device.monitoringError = nil
        #expect(EffectInterpreter.perform(effects, on: device).failures.isEmpty)
        #expect(device.monitored["focus"] == start...start.addingTimeInterval(1800))
        #expect(device.traces(named: "monitoring_started").count == 1)
    }

    /// InMemoryDevice plays the OS: a dead process loses its timers, never the suite, the shields
    /// or the registrations.
    @Test func aProcessDeathDropsTimersOnly() {
        let device = InMemoryDevice()
        let start = Date(timeIntervalSince1970: 1_772_438_400)
        EffectInterpreter.perform([
            .setDefaults([.set("k", .integer(1))], atomic: true), .applyShields(["com.x"]), .startTimer("poll", .every(seconds: 30)),
            .startMonitoring(activity: "focus", start: start, end: start.addingTimeInterval(900), repeats: false),
        ], on: device)
        device.processDied()
        #expect(device.timers.isEmpty)
        #expect(device.store == ["k": .integer(1)] && device.shields == ["com.x"] && device.monitored.count == 1)
        EffectInterpreter.perform([.stopMonitoring(["focus"]), .removeShields, .setDefaults([DefaultsWrite(key: "k", value: nil)], atomic: true)], on: device)
        #expect(device.monitored.isEmpty && device.shields == nil && device.store.isEmpty)
    }
}
