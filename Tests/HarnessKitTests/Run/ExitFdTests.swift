import AppGroup
import Foundation
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A child's pidfd (`ChildProcess.exitFd`): readable once the child has exited, not before, and
/// the harness's wait for quiet (`SchedulerInbox.read(alsoWaitFor:)`) ends on it instead of
/// looking again every millisecond.
@Suite(.timeLimit(.minutes(1))) struct ExitFdTests {
    static func readable(_ fd: Int32, within millis: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, millis) == 1 && p.revents & Int16(POLLIN) != 0
    }

    @Test func exitFdTurnsReadableWhenTheChildExitsAndNotBefore() throws {
        let child = try ChildProcess.spawn("/bin/sleep", ["30"], captureStdout: false)
        defer { _ = child.killAndReap() }
        #expect(child.exitFd >= 0)
        #expect(!Self.readable(child.exitFd, within: 100))
        #expect(child.signal(SIGKILL))
        #expect(Self.readable(child.exitFd, within: 5_000))
        // Readable, and not yet reaped: `poll` reaps it now, with its status.
        #expect(child.poll() == .signalled(SIGKILL))
    }

    @Test func theWaitForReportsEndsWhenAWatchedChildExits() throws {
        let t = try TempDeviceRoot("exitfd")
        _ = try t.root.subdirectory(SchedulerChannel.directory)
        let inbox = try SchedulerInbox(deviceRoot: t.root)
        let child = try ChildProcess.spawn("/bin/sh", ["-c", "sleep 0.2"], captureStdout: false)
        defer { _ = child.killAndReap() }
        let timeout: Int32 = 20_000
        let start = DispatchTime.now().uptimeNanoseconds
        let reports = inbox.read(timeoutMillis: timeout, alsoWaitFor: [child.exitFd])
        let waitedMillis = (DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
        #expect(reports.isEmpty)
        // It ended because the child exited (after ~0.2 s), long before its 20 s bound.
        #expect(waitedMillis < UInt64(timeout / 4))
        #expect(Self.readable(child.exitFd, within: 0))
    }
}
