import AppGroup
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The harness's end of the scheduler FIFO (PROTOCOL.md §9): whole lines only, in order, a line
/// split across writes is joined, garbage is counted and dropped, never a hang.
@Suite(.timeLimit(.minutes(3))) struct SchedulerInboxTests {
    func rawWriter(_ t: TestRoot) throws -> Int32 {
        let fd = open(t.path + "/system/scheduler", O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        try #require(fd >= 0)
        return fd
    }

    func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }

    @Test func reportsArriveWholeAndInOrder() throws {
        let t = try TestRoot()
        let inbox = try SchedulerInbox(deviceRoot: t.root)
        #expect(inbox.read(timeoutMillis: 0).isEmpty)
        let channel = try #require(SchedulerChannel.open(deviceRoot: t.root))
        #expect(channel.reportIdle(nextUnixSeconds: 100.25, http: ["s": 1], consumed: ["a": 2]))
        #expect(channel.reportIdle(nextUnixSeconds: 100.25, http: ["s": 1], consumed: ["a": 2]))  // the same: not sent
        #expect(channel.reportIdle(nextUnixSeconds: nil, http: [:], consumed: ["a": 3]))
        let got = inbox.read(timeoutMillis: 100)
        #expect(got.map(\.seq) == [1, 2])
        #expect(got.first?.nextUnixSeconds == 100.25 && got.first?.http == ["s": 1] && got.last?.consumed == ["a": 3])
        #expect(got.allSatisfy { $0.pid == getpid() })
        #expect(inbox.malformedLines == 0)
    }

    /// News that does not come as a report (an app's prompt, filed while it waits for the answer)
    /// ends the harness's wait at once: the wait ran to its bound (50 ms per prompt per run).
    @Test func aNudgeEndsTheWaitAndIsNotAReport() throws {
        let t = try TestRoot()
        let inbox = try SchedulerInbox(deviceRoot: t.root)
        let start = ContinuousClock.now
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { inbox.nudge() }
        #expect(inbox.read(timeoutMillis: 20_000).isEmpty)
        #expect(ContinuousClock.now - start < .seconds(10), "the wait ended at the nudge, not at its 20 s bound")
        #expect(inbox.malformedLines == 0)
        // Nudges that came while nobody waited end the next wait once, then waits are whole again.
        for _ in 0..<3 { inbox.nudge() }
        let again = ContinuousClock.now
        #expect(inbox.read(timeoutMillis: 20_000).isEmpty)
        #expect(ContinuousClock.now - again < .seconds(10))
        let whole = ContinuousClock.now
        #expect(inbox.read(timeoutMillis: 200).isEmpty)
        #expect(ContinuousClock.now - whole >= .milliseconds(150), "drained: this wait runs to its bound")
    }

    @Test func aLineSplitAcrossWritesIsJoinedAndGarbageIsCounted() throws {
        let t = try TestRoot()
        let inbox = try SchedulerInbox(deviceRoot: t.root)
        let fd = try rawWriter(t)
        defer { close(fd) }
        write(fd, "v1\t7\t1\t5.000\t-\tx=")
        #expect(inbox.read(timeoutMillis: 50).isEmpty)  // half a line: nothing yet
        write(fd, "4\nnot a report\nv1\t7\t2\t-\t-\n")
        let got = inbox.read(timeoutMillis: 50)
        #expect(got.map(\.seq) == [1, 2])
        #expect(got.first?.consumed == ["x": 4] && got.first?.nextUnixSeconds == 5)
        #expect(inbox.malformedLines == 1)
        // A line longer than any report is dropped once it outgrows the bound.
        write(fd, String(repeating: "z", count: SchedulerReport.maxLineBytes + 10))
        #expect(inbox.read(timeoutMillis: 50).isEmpty)
        #expect(inbox.malformedLines == 2)
        write(fd, "\nv1\t7\t3\t-\t-\n")
        #expect(inbox.read(timeoutMillis: 50).map(\.seq) == [3])
    }

    @Test func aWaitEndsAtItsBoundWhenNothingComes() throws {
        let t = try TestRoot()
        let inbox = try SchedulerInbox(deviceRoot: t.root)
        let start = ContinuousClock.now
        #expect(inbox.read(timeoutMillis: 30).isEmpty)
        #expect(ContinuousClock.now - start >= .milliseconds(25))
        #expect(ContinuousClock.now - start < .seconds(5))
    }
}
