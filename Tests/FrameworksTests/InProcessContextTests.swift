import AppGroup
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

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
