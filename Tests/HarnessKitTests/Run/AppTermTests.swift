import AppGroup
import Foundation
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// An app's process iOS terminates while a tap waits in its inbox loses the tap with it: the next
/// launch never reads it. A real process, a real SIGSTOP, SIGTERM and SIGCONT: the tap is put in
/// the inbox (and posted) while the app is stopped, then TERM and CONT. Both of its threads wake —
/// the run loop to the pending TERM, the notify thread to the post — and which looked first used
/// to decide whether the tap was left for the next launch (3 runs in 10 left it), so two runs of
/// one seed differed. Now the loop takes the inbox at its TERM, every time.
@Suite(.timeLimit(.minutes(2))) struct AppTermTests {
    @Test func aTapInTheInboxAtATermIsLostWithTheProcessEveryTime() throws {
        let helper = try Executables.path(of: "sth-test-helper")
        for round in 1...8 {
            let t = try TempDeviceRoot("term-inbox")
            let run = t.path + "/run"
            try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
            // StandInContext's variables (run directory, variant) and the app's entitlement.
            let env = ProcessInfo.processInfo.environment.merging([
                DeviceRoot.environmentVariable: t.path, "SCREENTIME_RUN_DIR": run, "SCREENTIME_VARIANT": "hardened",
                "APP_GROUPS": "group.test.osprobe",
            ]) { $1 }
            let host = try ChildProcess.spawn(helper, ["osprobe", "host"], environment: env, captureStdout: false)
            defer { _ = host.killAndReap() }
            let trace = run + "/trace/host.jsonl"
            func traced() -> String { (try? String(contentsOfFile: trace, encoding: .utf8)) ?? "" }
            // `launch_read` is the host's answer to `.launched`: it observes its inbox by then.
            try #require(Self.eventually { traced().contains("\"launch_read\"") }, "round \(round): the host did not launch: \(traced())")
            try #require(host.stopAndWait(timeoutMillis: 5000), "round \(round): the host did not stop")

            let inbox = t.path + "/system/inbox/host"
            try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
            let tap = inbox + "/0000000001.json"
            try Data(#"{"seq":1,"action":"read","fields":{},"list":[]}"#.utf8).write(to: URL(fileURLWithPath: inbox + "/.tmp.1"))
            #expect(rename(inbox + "/.tmp.1", tap) == 0)
            try DarwinNotificationCenter(deviceRoot: t.root).post("system.inbox.host")

            #expect(host.signal(SIGTERM))
            #expect(host.signal(SIGCONT))
            #expect(host.wait(timeout: .seconds(20)) == .exited(0), "round \(round)")
            #expect(!FileManager.default.fileExists(atPath: tap), "round \(round): the tap was left in the inbox for the next launch")
            let lines = traced()
            #expect(lines.contains("\"terminated\""), "round \(round): \(lines)")
            #expect(!lines.contains("\"user_input\""), "round \(round): the terminated app acted on the tap: \(lines)")
        }
    }

    /// Polls `condition` for at most `seconds`.
    static func eventually(seconds: Double = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(5000)
        }
        return condition()
    }
}
