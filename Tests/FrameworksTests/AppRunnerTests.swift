import AppGroup
import Foundation
@testable import StandInKit
import ScreenTimeModel
import OSFiles
import SystemKit
import Testing

/// `AppRunner`'s timers, on the real run loop's code path (`feed` → `EffectInterpreter` →
/// `LiveDevice` → `startTimer`/`cancelTimer`, and `fireDueTimers`), in device time.
@Suite(.timeLimit(.minutes(1))) struct AppRunnerTests {
    /// An adapter that runs a script per input and records the timers it was told about.
    final class ScriptedAdapter: AppAdapter, @unchecked Sendable {
        var observedNotifications: [String] { [] }
        var fired: [String] = []
        var inputs: [AppInput] = []
        var script: [(AppInput, [Effect])] = []
        func handle(_ input: AppInput, now: Date, store: () -> [String: PropertyListValue]) -> [Effect] {
            inputs.append(input)
            if case .timer(let name) = input { fired.append(name) }
            return script.first { $0.0 == input }?.1 ?? []
        }
    }

    /// A runner on a fresh device whose clock starts at `TestDevice`'s epoch and runs at rate 1.
    static func runner(_ t: TestDevice, _ adapter: ScriptedAdapter) throws -> AppRunner {
        let run = t.path + "/run"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        let env = [
            DeviceRoot.environmentVariable: t.path, StandInContext.runDirectoryVariable: run,
            StandInContext.variantVariable: "hardened", "APP_GROUPS": "group.test",
        ]
        let context = try StandInContext(process: "timer-app", appGroup: "group.test", environment: env)
        return try AppRunner(context: context, adapter: adapter)
    }

    static let epoch = 1_772_438_400.0
    static func at(_ offset: Double) -> TimerFire { .at(Date(timeIntervalSince1970: epoch + offset)) }

    /// Two taps put in the inbox while the app launches: the notify thread took the first into the
    /// queue, `launch` takes the second. They are handled in the order they were put in the inbox —
    /// a start is never handled before the pick it follows (a fixed-rate run did that: the second
    /// tap went straight to `receive` while the first waited in the queue for the loop).
    @Test func tapsTakenAtLaunchComeAfterThoseTheNotifyThreadQueued() throws {
        let t = try TestDevice()
        let adapter = ScriptedAdapter()
        let runner = try Self.runner(t, adapter)
        let sender = try AppInbox(process: "timer-app", deviceRoot: runner.context.root, center: runner.context.center)
        try sender.send(AppMessage(action: "select_apps"))
        runner.queueInbox()  // the notify thread, woken by the first tap's post
        try sender.send(AppMessage(action: "start_session"))
        runner.launch()
        let actions = adapter.inputs.compactMap { input -> String? in
            if case .user(let m) = input { return m.action } else { return nil }
        }
        #expect(adapter.inputs.first == .launched)
        #expect(actions == ["select_apps", "start_session"], "\(adapter.inputs)")
    }

    /// The missed bug: in one batch of due timers, the first one's handler cancels the
    /// second and replaces the third. The cancelled one must not fire, and the replacements —
    /// one moved an hour on, one still due, and the handler's own timer re-armed — must not be
    /// dropped by the batch that was already under way.
    @Test func aTimerCancelledOrReplacedByAnEarlierHandlerInTheSameBatch() throws {
        let t = try TestDevice()
        let adapter = ScriptedAdapter()
        adapter.script = [
            (.launched, [.startTimer("a", Self.at(-60)), .startTimer("b", Self.at(-30)), .startTimer("c", Self.at(-30)), .startTimer("d", Self.at(-30))]),
            (.timer("a"), [.cancelTimer("b"), .startTimer("c", .after(seconds: 3600)), .startTimer("d", Self.at(-10)), .startTimer("a", .after(seconds: 7200))]),
        ]
        let runner = try Self.runner(t, adapter)
        runner.feed(.launched)
        #expect(Set(runner.timers.keys) == ["a", "b", "c", "d"])
        runner.fireDueTimers()
        #expect(adapter.fired.first == "a")
        #expect(!adapter.fired.contains("b"), "a cancelled timer fired: \(adapter.fired)")
        #expect(!adapter.fired.contains("c"), "a timer moved an hour on fired at its old time: \(adapter.fired)")
        // The next batch: the replacement of d (still due) fires once; nothing else is due.
        runner.fireDueTimers()
        #expect(adapter.fired == ["a", "d"], "\(adapter.fired)")
        runner.fireDueTimers()
        #expect(adapter.fired == ["a", "d"])
        // Not lost: c an hour on, a re-armed two hours on; b and d gone.
        let now = runner.context.clock.nowUnixSeconds()
        #expect(Set(runner.timers.keys) == ["a", "c"])
        #expect((runner.timers["c"]?.next ?? 0) > now + 3500)
        #expect((runner.timers["a"]?.next ?? 0) > now + 7100)
        #expect(runner.timers["a"]?.every == nil)
    }

    /// Equal due times fire by name, and a repeating timer that missed several periods (a stopped
    /// process) fires once and keeps its grid.
    @Test func dueTimersFireInTimeThenNameOrderAndARepeatingOneOnceOnItsGrid() throws {
        let t = try TestDevice()
        let adapter = ScriptedAdapter()
        adapter.script = [(.launched, [.startTimer("z", Self.at(-50)), .startTimer("y", Self.at(-50)), .startTimer("x", Self.at(-20))])]
        let runner = try Self.runner(t, adapter)
        runner.feed(.launched)
        runner.startTimer("tick", .every(seconds: 10))
        let now = runner.context.clock.nowUnixSeconds()
        runner.timers["tick"]?.next = now - 35  // 3 periods and a half missed
        runner.fireDueTimers()
        #expect(adapter.fired == ["y", "z", "tick", "x"])
        let next = try #require(runner.timers["tick"]?.next)
        #expect(next > now && next <= now + 10.001)
        #expect(abs((next - (now - 35)).truncatingRemainder(dividingBy: 10)) < 0.001)
    }

    /// A reply to a request the runner no longer waits for (given up at its deadline) is dropped,
    /// not handed to the machine a second time; the timers a process can hold are bounded.
    @Test func aReplyNoLongerAwaitedIsDroppedAndTimersAreBounded() throws {
        let t = try TestDevice()
        let adapter = ScriptedAdapter()
        let runner = try Self.runner(t, adapter)
        runner.receive(.httpReply(requestId: 99, .transportError("late")))
        #expect(adapter.inputs.isEmpty)
        runner.httpInFlight[7] = ("server", nil)
        runner.receive(.httpReply(requestId: 7, .transportError("refused")))
        runner.receive(.httpReply(requestId: 7, .transportError("refused")))
        #expect(adapter.inputs == [.httpReply(requestId: 7, .transportError("refused"))])
        for i in 0..<(AppRunner.maxTimers + 5) { runner.startTimer("t\(i)", .after(seconds: 60)) }
        #expect(runner.timers.count == AppRunner.maxTimers)
        #expect(runner.timers["t\(AppRunner.maxTimers)"] == nil)
        // At the bound a timer it holds can still be moved.
        runner.startTimer("t0", .after(seconds: 600))
        #expect((runner.timers["t0"]?.next ?? 0) > runner.context.clock.nowUnixSeconds() + 500)
    }

    /// An answer that came back while the app was still at work — here, while a tap's handler
    /// waited for its authorization, whose answer it then delivers to itself — is handed over only
    /// when nothing else is queued: after that answer, whichever thread got there first (a settle
    /// answer raced the authorization's, and replays of one seed differed).
    @Test func anAnswerWaitsUntilNothingElseIsQueued() throws {
        let t = try TestDevice()
        let adapter = ScriptedAdapter()
        let runner = try Self.runner(t, adapter)
        runner.httpInFlight[1] = ("server", nil)
        runner.answered(1, .transportError("refused"))  // the worker thread, first
        runner.deliverLater(.launched)  // the handler's own completion, after it
        #expect(runner.takeReply() == nil)
        let queued = runner.takeQueued()
        #expect(queued.map(\.input) == [.launched])
        #expect(runner.takeReply() == .httpReply(requestId: 1, .transportError("refused")))
        #expect(runner.takeReply() == nil)
    }

    /// A request that could not leave (an `error` failpoint at `http.send`, or too many in flight)
    /// is answered with its transport error — the machine is never left waiting for an answer
    /// to a request it was told nothing about.
    @Test func aRequestThatCannotLeaveIsAnsweredWithItsError() throws {
        let t = try TestDevice()
        let adapter = ScriptedAdapter()
        let runner = try Self.runner(t, adapter)
        runner.inFlight = AppRunner.maxInFlight
        runner.send(requestId: 4, HTTPCall(service: "server", method: "POST", path: "/x"))
        let reply = try #require(runner.takeReply())
        runner.receive(reply)
        #expect(adapter.inputs == [.httpReply(requestId: 4, .transportError("too many requests in flight"))])
        #expect(runner.httpInFlight.isEmpty)
    }
}
