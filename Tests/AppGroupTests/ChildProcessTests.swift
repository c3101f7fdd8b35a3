import Foundation
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Supervision's promises (Sources/Harness/Supervision): children die with us (PR_SET_PDEATHSIG), a whole
/// process group can be killed, exit statuses are what the kernel said, waits are bounded.
/// Here (not in a target of their own) because these tests start the same helper executable.
@Suite(.timeLimit(.minutes(3))) struct ChildProcessTests {
    /// Alive and not a zombie (an orphan killed but not yet reaped by its new parent is dead).
    static func isAlive(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(close, offsetBy: 2)] != "Z"
    }

    /// Kills `pid` only while it is still the `sleep 1000` this test started (pids are reused).
    static func killStraySleep(_ pid: pid_t) {
        guard isAlive(pid), let cmd = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
            cmd.split(separator: 0).last.map({ Array($0) }) == Array("1000".utf8)
        else { return }
        kill(pid, SIGKILL)
    }

    /// `stopAndWait` returns only once the kernel shows the child stopped (`T`), even when it is
    /// busy on a CPU the test does not hold: a record of "suspended" right after is true.
    @Test func stopAndWaitReturnsWhenTheChildIsStopped() throws {
        let p = try ChildProcess.spawn("/bin/sh", ["-c", "while :; do :; done"], captureStdout: false, stderrTo: -1)
        defer { p.killAndReap() }
        #expect(eventually(timeout: .seconds(5)) { p.procState == "R" }, "the busy loop runs: \(p.procState ?? "nil")")
        for _ in 0..<20 {
            #expect(p.stopAndWait(timeoutMillis: 2000))
            #expect(p.procState == "T", "stopped right after stopAndWait: \(p.procState ?? "nil")")
            p.signal(SIGCONT)
            #expect(eventually(timeout: .seconds(5)) { p.procState != "T" })
        }
    }

    @Test func grandchildDiesWithItsParent() throws {
        let t = try TestRoot()
        let p = try t.helper(["spawn-child", "--root", t.path])
        defer { p.killAndReap() }
        let line = p.readLine(timeout: .seconds(10)) ?? ""
        let child = try #require(Int32(line.dropFirst("child ".count)), "helper said \(line)")
        defer { Self.killStraySleep(child) }
        #expect(Self.isAlive(child))
        // The helper alone (not its group: the grandchild leads a group of its own).
        p.signal(SIGKILL)
        #expect(p.wait(timeout: .seconds(5)) == .signalled(SIGKILL))
        #expect(eventually(timeout: .seconds(5)) { !Self.isAlive(child) }, "the grandchild outlived its parent")
    }

    @Test func killAndReapTakesTheWholeGroup() throws {
        // sh's background job joins sh's process group but is no ChildProcess of ours: only
        // killing the group reaches it.
        let p = try ChildProcess.spawn("/bin/sh", ["-c", "sleep 1000 & echo $!; wait"])
        defer { p.killAndReap() }
        let line = p.readLine(timeout: .seconds(10)) ?? ""
        let sleeper = try #require(Int32(line), "sh said \(line)")
        defer { Self.killStraySleep(sleeper) }
        #expect(Self.isAlive(sleeper))
        #expect(getpgid(p.pid) == p.pid && getpgid(sleeper) == p.pid)
        #expect(p.killAndReap() == .signalled(SIGKILL))
        #expect(eventually(timeout: .seconds(5)) { !Self.isAlive(sleeper) }, "the group survived")
    }

    @Test func exitStatusIsWhatTheKernelSaid() throws {
        let exited = try ChildProcess.spawn("/bin/sh", ["-c", "exit 3"], captureStdout: false)
        #expect(exited.wait(timeout: .seconds(10)) == .exited(3))
        let signalled = try ChildProcess.spawn("/bin/sh", ["-c", "kill -TERM $$"], captureStdout: false)
        #expect(signalled.wait(timeout: .seconds(10)) == .signalled(SIGTERM))
    }

    @Test func missingExecutableIsASpawnErrorNotAChild() {
        #expect {
            _ = try ChildProcess.spawn("/nonexistent/sth-no-such-binary")
        } throws: { error in
            (error as? ChildProcess.SpawnError)?.errno == ENOENT
        }
    }

    /// `wait(timeout:)` on a child that does not exit returns nil after about the timeout. Run on
    /// a thread so that a wait that never returns fails this test instead of hanging the suite.
    @Test func waitIsBounded() throws {
        let p = try ChildProcess.spawn("/bin/sleep", ["1000"], captureStdout: false)
        defer { p.killAndReap() }
        let done = DispatchSemaphore(value: 0)
        let result = Box<ChildProcess.ExitStatus?>()
        Thread {
            result.append(p.wait(timeout: .milliseconds(200)))
            done.signal()
        }.start()
        let returned = done.wait(timeout: .now() + .seconds(10)) == .success
        #expect(returned, "wait(timeout: 200 ms) did not return within 10 s")
        if returned { #expect(result.all == [nil]) }
    }
}
