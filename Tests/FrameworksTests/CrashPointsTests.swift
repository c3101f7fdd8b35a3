import AppGroup
import Foundation
@_spi(ScreenTimeHarness) import ManagedSettings
import StandInKit
import StandInRuntime
import SystemKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The core's crash points (`CrashPoints`, CRASH-POINTS.md §11) as a stand-in passes them: the App
/// Group primitives (a suite write per key, a post, a heartbeat) and the effect interpreter each
/// mark theirs with a stable label and count, the log lets a relaunch continue the count, and an
/// armed failpoint acts there. `CrashPoints` is one registry per process, so every test that
/// turns it on is in this one serialized suite (AppGroup's own tests cannot reach the interpreter).
@Suite(.serialized, .timeLimit(.minutes(1))) struct CrashPointsTests {
    final class Setup {
        let device: TestDevice
        let log: String
        init(_ label: String = #function) throws {
            device = try TestDevice(label)
            log = device.path + "/crashpoints"
        }
        func configure(_ failpoints: [String] = [], process: String = "p") throws {
            try CrashPoints.configure(process: process, environment: [
                CrashPoints.directoryVariable: log, CrashPoints.failpointsVariable: failpoints.joined(separator: "\n"),
                CrashPoints.seedVariable: "1",
            ])
        }
        func defaults() throws -> SharedDefaults {
            let c = try AppGroupContainer(deviceRoot: device.device.root, groupIdentifier: "group.cp", entitlements: Entitlements(appGroups: ["group.cp"]))
            return try SharedDefaults(container: c, suiteName: "group.cp")
        }
        deinit { CrashPoints.reset() }
    }

    /// Under virtual time the passes are ordered by the step they fell in, then by process, then
    /// in each process's order — not by CLOCK_MONOTONIC, which two processes acting at one device
    /// instant race for: two runs whose passes interleave differently within a step give one list.
    @Test func virtualTimeOrdersByStepThenProcessNotByWallTime() throws {
        let s = try Setup()
        try FileManager.default.createDirectory(atPath: s.log, withIntermediateDirectories: true)
        func run(host: [(Int64, String)], ext: [(Int64, String)]) throws -> [String] {
            try Data(host.map { "\($0.0)\thost:\($0.1)\n" }.joined().utf8).write(to: URL(fileURLWithPath: s.log + "/host.log"))
            try Data(ext.map { "\($0.0)\text:\($0.1)\n" }.joined().utf8).write(to: URL(fileURLWithPath: s.log + "/ext.log"))
            return CrashPoints.recorded(in: s.log, stepStarts: [100, 200])
        }
        // Step 0 (before 100), step 1 (100..<200), step 2 (200...). In the first run the extension's
        // step-1 pass comes first in wall time, in the second the host's.
        let a = try run(host: [(10, "a#1"), (150, "b#1"), (160, "b#2"), (250, "c#1")], ext: [(120, "respond#1"), (210, "respond#2")])
        let b = try run(host: [(10, "a#1"), (110, "b#1"), (120, "b#2"), (250, "c#1")], ext: [(190, "respond#1"), (260, "respond#2")])
        #expect(a == b)
        #expect(a == ["host:a#1", "ext:respond#1", "host:b#1", "host:b#2", "ext:respond#2", "host:c#1"])
        // Without steps (a fixed rate): wall time.
        #expect(CrashPoints.recorded(in: s.log) == ["host:a#1", "host:b#1", "host:b#2", "ext:respond#1", "host:c#1", "ext:respond#2"])
    }

    @Test func offByDefaultNothingIsCounted() throws {
        let s = try Setup()
        CrashPoints.reset()
        try s.defaults().store(1, forKey: "k")
        #expect(!CrashPoints.isEnabled)
        #expect(CrashPoints.count("defaults:group.cp/k") == 0)
        #expect(CrashPoints.recorded(in: s.log).isEmpty)
    }

    /// A one-`set`-at-a-time write through the interpreter is one crash point per key, a post
    /// and a heartbeat one each, an atomic multi-key write one; each pass is logged with its count.
    @Test func thePrimitivesAndTheInterpreterMarkEachWrite() throws {
        let s = try Setup()
        try s.configure()
        let d = try s.defaults()
        try d.setValues(["a": 1, "b": 2])
        try d.store(3, forKey: "a")
        d.removeObject(forKey: "b")
        d.set(3, forKey: "a")  // unchanged: nothing is written, no crash point
        try DarwinNotificationCenter(deviceRoot: s.device.device.root).post("com.x.changed")
        let c = try AppGroupContainer(deviceRoot: s.device.device.root, groupIdentifier: "group.cp", entitlements: Entitlements(appGroups: ["group.cp"]))
        try HeartbeatWriter(container: c, writer: "app", intervalSeconds: 5, clock: DeviceClock(deviceRoot: s.device.device.root)).beat()
        let memory = InMemoryDevice()
        EffectInterpreter.perform([.applyShields(["com.x"]), .step("decided"), .respond(.close)], on: memory)
        #expect(CrashPoints.recorded(in: s.log) == [
            "p:defaults:group.cp/a,b#1", "p:defaults:group.cp/a#1", "p:defaults:group.cp/b#1", "p:post:com.x.changed#1",
            "p:heartbeat:app#1", "p:shield:default#1", "p:step:decided#1", "p:respond#1",
        ])
    }

    /// A UUID an app draws afresh in every run (a notification id) is `<uuid>` in the label, so the
    /// label is the same in every run and a failpoint can aim at it; `#n` tells the passes apart.
    @Test func aUUIDInALabelIsWrittenUUIDSoTheLabelIsStable() throws {
        #expect(CrashPoints.stableLabel("notification.add:0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0") == "notification.add:<uuid>")
        #expect(CrashPoints.stableLabel("x:a1b2c3d4-0000-4000-8000-00000000000a,B1B2C3D4-0000-4000-8000-00000000000B")
            == "x:<uuid>,<uuid>")
        // Not a UUID: too short a group, a longer hex run, no dashes.
        for kept in ["step:0F1E2D3-4B5A-6978-8796-A5B4C3D2E1F0x", "step:00F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0",
                     "defaults:group.cp/focuspledge_session_start_time", "step:0F1E2D3C4B5A69788796A5B4C3D2E1F0abcd"] {
            #expect(CrashPoints.stableLabel(kept) == kept)
        }
        let s = try Setup()
        try s.configure(["p:step:add <uuid>#2=error"])
        let memory = InMemoryDevice()
        let first = EffectInterpreter.perform([.step("add " + UUID().uuidString)], on: memory)
        let second = EffectInterpreter.perform([.step("add " + UUID().uuidString)], on: memory)
        #expect(first.failures.isEmpty)
        #expect(second.failures.count == 1, "the failpoint aimed at the second pass fires although its UUID is new")
        #expect(CrashPoints.recorded(in: s.log) == ["p:step:add <uuid>#1", "p:step:add <uuid>#2"])
    }

    /// A relaunched process reads its log back: the count goes on, and a failpoint's count is
    /// used up as far as the earlier incarnation went.
    @Test func aRelaunchContinuesTheCountAndTheFailpointsState() throws {
        let s = try Setup()
        try s.configure(["p:step:x=2*off->error"])
        let memory = InMemoryDevice()
        let first = EffectInterpreter.perform([.step("x")], on: memory)
        #expect(first.failures.isEmpty)
        // "Relaunch": the registry is configured again from the same log.
        CrashPoints.reset()
        try s.configure(["p:step:x=2*off->error"])
        #expect(CrashPoints.count("step:x") == 1)
        let second = EffectInterpreter.perform([.step("x"), .step("x")], on: memory)
        #expect(second.failures.count == 1, "the 2*off let passes 1 and 2 through; pass 3 errs")
        #expect(memory.traces(named: "step_error").first?["error"] == "failpoint p:step:x#3: injected error")
        #expect(CrashPoints.recorded(in: s.log).suffix(2) == ["p:step:x#2", "p:step:x#3"])
    }

    /// `error` makes the operation throw: a suite write does not land and the interpreter hands
    /// the machine `effectFailed`; other processes' failpoints are ignored.
    @Test func anErrorFailpointFailsTheWriteItNames() throws {
        let s = try Setup()
        try s.configure(["p:defaults:group.cp/b#1=error", "other:defaults:group.cp/a=error"])
        let d = try s.defaults()
        try d.store(1, forKey: "a")
        #expect(throws: CrashPoints.InjectedError.self) { try d.store(2, forKey: "b") }
        #expect(try s.defaults().value(forKey: "b") == nil)
        try d.store(2, forKey: "b")  // #2: the failpoint was for #1 only
        #expect(try s.defaults().value(forKey: "b") == .integer(2))
        let memory = InMemoryDevice()
        try s.configure(["p:shield:default=error"])
        let outcome = EffectInterpreter.perform([.applyShields(["com.x"])], on: memory)
        #expect(outcome.failures.count == 1 && memory.shields == nil)
    }

    /// Every ManagedSettingsStore group's setter is a crash point `<group>:<store>`, as the
    /// shield's is; an `error` failpoint there fails that write alone (the setter reports it).
    @Test func eachManagedSettingsGroupSetterIsACrashPoint() throws {
        let s = try Setup()
        try s.configure(["p:application:focus=error"])
        let store = ManagedSettingsStore(named: .init("focus"), device: s.device.device)
        store.application.denyAppRemoval = true
        store.webContent.blockedByFilter = .all()
        store.account.lockAccounts = true
        #expect(store.application.denyAppRemoval == nil, "the failpoint failed that write")
        #expect(store.webContent.blockedByFilter == .all() && store.account.lockAccounts == true)
        #expect(CrashPoints.recorded(in: s.log) == ["p:application:focus#1", "p:webContent:focus#1", "p:account:focus#1"])
    }

    /// `delay(ms)` holds the calling thread; `stop(ms)` freezes the process and a forked waker
    /// continues it: both come back after about that long.
    @Test func delayAndStopComeBackAfterTheirTime() throws {
        let s = try Setup()
        try s.configure(["p:step:d=delay(60)", "p:step:s=stop(60)"])
        final class Fired: @unchecked Sendable {
            let lock = NSLock()
            var lines: [String] = []
        }
        let fired = Fired()
        CrashPoints.onFire = { label, term in fired.lock.lock(); fired.lines.append("\(label) \(term)"); fired.lock.unlock() }
        for name in ["d", "s"] {
            let t0 = ContinuousClock.now
            try CrashPoints.pass("step:" + name)
            let ms = (ContinuousClock.now - t0).components.attoseconds / 1_000_000_000_000_000 + (ContinuousClock.now - t0).components.seconds * 1000
            #expect(ms >= 55 && ms < 5000, "\(name): \(ms) ms")
        }
        CrashPoints.onFire = nil
        #expect(fired.lines == ["p:step:d#1 delay(60)", "p:step:s#1 stop(60)"])
    }
}

/// What a stand-in inside the harness has of its own (`harness run --in-process`): its crash
/// points, its environment, its wait and its incarnation — on its thread, and on threads its own
/// code starts while it holds the turn. In `CrashPointsTests`' serialized suite: both set what a
/// pass reads.
extension CrashPointsTests {
    /// Runs `body` on a thread of its own and waits for it.
    static func onThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let t = Thread {
            body()
            done.signal()
        }
        t.start()
        done.wait()
    }

    final class Box<T>: @unchecked Sendable {
        var value: T
        init(_ v: T) { value = v }
    }

    @Test func twoStandInsCountTheirOwnCrashPointsAndAThreadTheyStartCountsForTheTurnHolder() throws {
        let s = try Setup()
        let a = CrashPoints.State(), b = CrashPoints.State()
        let env = [CrashPoints.directoryVariable: s.log, CrashPoints.seedVariable: "1"]
        let counts = Box<[String: Int]>([:])
        Self.onThread {
            CrashPoints.installOnThisThread(a)
            try? CrashPoints.configure(process: "a", environment: env)
            try? CrashPoints.pass("step:x")
            try? CrashPoints.pass("step:x")
            counts.value["a"] = CrashPoints.count("step:x")
        }
        Self.onThread {
            CrashPoints.installOnThisThread(b)
            try? CrashPoints.configure(process: "b", environment: env)
            try? CrashPoints.pass("step:x")
            counts.value["b"] = CrashPoints.count("step:x")
        }
        #expect(counts.value == ["a": 2, "b": 1])
        // A thread of b's own code (no state of its own) while b holds the turn counts for b.
        CrashPoints.setTurnHolder(b)
        Self.onThread {
            try? CrashPoints.pass("step:x")
            counts.value["helper"] = CrashPoints.count("step:x")
        }
        CrashPoints.setTurnHolder(nil)
        #expect(counts.value["helper"] == 2)
        a.close()
        b.close()
        let lines = CrashPoints.recorded(in: s.log)
        #expect(lines.filter { $0.hasPrefix("a:") } == ["a:step:x#1", "a:step:x#2"])
        #expect(lines.filter { $0.hasPrefix("b:") } == ["b:step:x#1", "b:step:x#2"])
    }

    /// Inside the harness a stand-in's launch is a thread, and an object its code keeps in a
    /// `static` (a seed's `AppGroupStorage.shared` and its `UserDefaults`) outlives the launch. A
    /// launch killed by a failpoint in the middle of a write leaves the store's lock held (its
    /// thread is parked where it stood); the next launch, through the same kept object, must write
    /// as a new process would — on its own store of the suite — not wait for the dead launch.
    @Test func aSuiteKeptAcrossLaunchesInsideTheHarnessIsEachLaunchsOwn() throws {
        final class Launch: Sendable {}
        let device = try TestDevice()
        let env = [
            DeviceRoot.environmentVariable: device.path, "SCREENTIME_PROCESS": "ext", Entitlements.environmentVariable: "group.x",
            CrashPoints.directoryVariable: device.path + "/crashpoints", CrashPoints.seedVariable: "1",
            CrashPoints.failpointsVariable: "ext:defaults:group.x/failed#1=kill",
        ]
        let kept = LockedBox<AppGroupFoundation.UserDefaults?>(nil)
        let firstStore = LockedBox<SharedDefaults?>(nil)
        let killed = DispatchSemaphore(value: 0)
        let first = Launch(), second = Launch()
        let states = LockedBox<[CrashPoints.State]>([])
        func launch(_ incarnation: Launch, _ body: @escaping @Sendable () -> Void) {
            let state = LockedBox<CrashPoints.State?>(nil)
            let s = CrashPoints.State(onKill: {
                // As a kill inside the harness: the launch ends as a process does (its flocks
                // released), its thread never runs again.
                state.value?.processEnded()
                killed.signal()
                let never = DispatchSemaphore(value: 0)
                while true { never.wait() }
            })
            state.value = s
            states.value.append(s)
            Thread {
                StandInEnvironment.setForThisThread(env)
                StandInEnvironment.setIncarnationForThisThread(incarnation)
                CrashPoints.installOnThisThread(s)
                try? CrashPoints.configure(process: "ext", environment: env)
                body()
                CrashPoints.installOnThisThread(nil)
                StandInEnvironment.setIncarnationForThisThread(nil)
                StandInEnvironment.setForThisThread(nil)
            }.start()
        }
        defer { for s in states.value { s.close() } }
        launch(first) {
            kept.value = AppGroupFoundation.UserDefaults(suiteName: "group.x")
            firstStore.value = kept.value?.store
            kept.value?.set(true, forKey: "failed")
        }
        #expect(killed.wait(timeout: .now() + 10) == .success)
        let read = LockedBox<Bool?>(nil)
        let ownStore = LockedBox<Bool?>(nil)
        launch(second) {
            guard let d = kept.value else { return }
            d.set(true, forKey: "failed")
            ownStore.value = d.store !== firstStore.value && d.store === d.store
            read.value = d.bool(forKey: "failed")
        }
        #expect(eventually(10) { read.value != nil }, "the second launch waited for the lock its killed predecessor held")
        #expect(read.value == true)
        #expect(ownStore.value == true)
        // Asked from the launch that opened it, it is the store it opened.
        let same = LockedBox<Bool?>(nil)
        Thread {
            StandInEnvironment.setIncarnationForThisThread(first)
            same.value = kept.value?.store === firstStore.value
            StandInEnvironment.setIncarnationForThisThread(nil)
        }.start()
        #expect(eventually(10) { same.value != nil })
        #expect(same.value == true)
    }

    /// A launch inside the harness that ends closes its trace, as the kernel closes a process's
    /// files: its descriptor goes, and a thread its code started writes no line after the end.
    @Test func aLaunchInsideTheHarnessThatEndsClosesItsTrace() throws {
        let device = try TestDevice()
        let run = device.path + "/run"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        let env = [
            DeviceRoot.environmentVariable: device.path, StandInContext.runDirectoryVariable: run,
            StandInContext.variantVariable: "hardened", Entitlements.environmentVariable: "group.test",
        ]
        let state = CrashPoints.State()
        defer { state.close() }
        let context = LockedBox<StandInContext?>(nil)
        let launched = DispatchSemaphore(value: 0)
        Thread {
            CrashPoints.installOnThisThread(state)
            context.value = try? StandInContext(process: "app", appGroup: "group.test", environment: env)
            context.value?.trace.log("before_the_end")
            CrashPoints.installOnThisThread(nil)
            launched.signal()
        }.start()
        #expect(launched.wait(timeout: .now() + 10) == .success)
        let trace = try #require(context.value?.trace)
        let real = URL(fileURLWithPath: trace.path).resolvingSymlinksInPath().path
        func descriptors() -> Int {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == real }.count
        }
        #expect(descriptors() == 1, "the trace is not open once: \(real)")
        state.processEnded()  // what the harness does when the launch is killed or returns
        #expect(descriptors() == 0, "the ended launch's trace is still open")
        trace.log("after_the_end")  // a thread its code started, after the end
        let lines = try String(contentsOfFile: trace.path, encoding: .utf8)
        #expect(lines.contains("before_the_end") && !lines.contains("after_the_end"), "\(lines)")
    }

    /// A torn write (an App Group field fault: the first key lands, then the writer dies) ends
    /// the writer as a kill failpoint does: a process by SIGKILL; a stand-in inside the harness
    /// by its launch's own end — never the harness's process.
    @Test func aTornWriteInsideTheHarnessEndsTheLaunchNotTheProcess() throws {
        let s = try Setup()
        let d = try s.defaults()
        d.faults = try #require(DefaultsFaults.parse("torn - - t 1"))
        let ended = DispatchSemaphore(value: 0)
        let box = LockedBox<CrashPoints.State?>(nil)
        let state = CrashPoints.State(onKill: {
            // As a kill inside the harness (InProcessChild): the launch ends as a process does —
            // its flocks released — and its thread never runs again.
            box.value?.processEnded()
            ended.signal()
            let never = DispatchSemaphore(value: 0)
            while true { never.wait() }
        })
        box.value = state
        defer { state.close() }
        Thread {
            CrashPoints.installOnThisThread(state)
            try? d.setValues(["a": 1, "b": 2])
        }.start()
        #expect(ended.wait(timeout: .now() + 10) == .success, "the launch did not end at its torn write")
        // The first key landed, the second did not: a fresh reader sees the tear.
        let after = try s.defaults().snapshot()
        #expect(after["a"] == .integer(1) && after["b"] == nil, "\(after)")
    }

    @Test func aThreadWithoutItsOwnEnvironmentReadsTheTurnHolders() {
        final class Incarnation {}
        let one = Incarnation(), two = Incarnation()
        let seen = Box<[String]>([])
        let waited = Box<Bool>(false)
        StandInEnvironment.setTurnHolder(["STH_PROBE": "holder"], wait: { _, _ in waited.value = true }, incarnation: one)
        Self.onThread {
            seen.value.append(StandInEnvironment.current["STH_PROBE"] ?? "none")
            seen.value.append(String(StandInEnvironment.isThreadOwn))
            StandInEnvironment.waitForPost?("n", 0)
            let first = StandInEnvironment.perIncarnation { NSObject() }
            let again = StandInEnvironment.perIncarnation { NSObject() }
            seen.value.append(String(first === again && first != nil))
            // Its own environment wins over the holder's.
            StandInEnvironment.setForThisThread(["STH_PROBE": "own"])
            seen.value.append(StandInEnvironment.current["STH_PROBE"] ?? "none")
        }
        let firstOfOne = Box<NSObject?>(nil)
        Self.onThread { firstOfOne.value = StandInEnvironment.perIncarnation { NSObject() } }
        StandInEnvironment.setTurnHolder(["STH_PROBE": "holder"], wait: nil, incarnation: two)
        let ofTwo = Box<NSObject?>(nil)
        Self.onThread { ofTwo.value = StandInEnvironment.perIncarnation { NSObject() } }
        StandInEnvironment.setTurnHolder(nil, wait: nil)
        Self.onThread {
            seen.value.append(StandInEnvironment.current["STH_PROBE"] ?? "none")
            seen.value.append(String(StandInEnvironment.isThreadOwn))
            seen.value.append(String(StandInEnvironment.perIncarnation { NSObject() } == nil))
        }
        #expect(seen.value == ["holder", "true", "true", "own", "none", "false", "true"])
        #expect(waited.value)
        // One instance per incarnation: another launch gets its own.
        #expect(firstOfOne.value != nil && ofTwo.value != nil && firstOfOne.value !== ofTwo.value)
    }
}
