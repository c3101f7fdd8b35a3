import AppGroup
import Foundation
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// PROTOCOL.md §1: "Waiting for a lock is bounded (default 5 s); a holder that is SIGSTOPped turns
/// into a `lockTimeout` error, never a hang" — and never a write made without the lock.
@Suite(.timeLimit(.minutes(3))) struct FileLockTests {
    /// A helper that holds the suite lock and `notify/.lock`, then is SIGSTOPped: it never lets go.
    /// A watchdog SIGKILLs it after `watchdogSeconds`, so a lock that waits forever ends the test
    /// (as a failure) instead of hanging the suite.
    final class StoppedHolder: @unchecked Sendable {
        let process: ChildProcess
        init(_ t: TestRoot, watchdogSeconds: Int = 30) throws {
            process = try t.helper(["hold-lock", "--root", t.path])
            guard process.readLine(timeout: .seconds(10)) == "locked" else {
                process.killAndReap()
                throw HolderDidNotStart()
            }
            process.signal(SIGSTOP)
            let p = process
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(watchdogSeconds)) { p.killAndReap() }
        }
        deinit { process.killAndReap() }
        struct HolderDidNotStart: Error {}
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }

    /// A write to shared defaults and a post, each against a stopped holder, throw `lockTimeout`
    /// once their bound has passed, and write nothing. The bound is 5 s by default; the waits here
    /// use 1 s (the same code path) to keep the suite fast.
    @Test func stoppedHolderTurnsIntoLockTimeoutNotAnUnlockedWrite() throws {
        let t = try TestRoot()
        #expect(try t.defaults().lockTimeout == .seconds(5))
        #expect(try DarwinNotificationCenter(deviceRoot: t.root).lockTimeout == .seconds(5))
        let bound = Duration.seconds(1)
        let d = try SharedDefaults(container: t.container(), suiteName: TestRoot.group, lockTimeout: bound)
        d.set(1, forKey: "n")
        let center = try DarwinNotificationCenter(deviceRoot: t.root, lockTimeout: bound)
        try center.post("n")
        let holder = try StoppedHolder(t)

        // The post waits on a second thread while the defaults write waits on this one.
        let postResult = Box<(Error?, Duration)>()
        let postDone = DispatchSemaphore(value: 0)
        Thread {
            let start = ContinuousClock.now
            var failure: Error?
            do { try center.post("n") } catch { failure = error }
            postResult.append((failure, ContinuousClock.now - start))
            postDone.signal()
        }.start()

        let start = ContinuousClock.now
        var storeError: Error?
        do { try d.store(2, forKey: "n") } catch { storeError = error }
        let waited = ContinuousClock.now - start
        #expect(postDone.wait(timeout: .now() + .seconds(30)) == .success)

        guard case .lockTimeout(let path, let ms)? = storeError as? AppGroupError else {
            Issue.record("a write against a stopped holder gave \(String(describing: storeError)), not lockTimeout")
            return
        }
        #expect(path.hasSuffix("Library/Preferences/\(TestRoot.group).plist.lock"))
        #expect(ms >= 990, "gave up after \(ms) ms; the bound is 1 s")
        // Generous upper margin: the machine is shared and noisy; a hang would be 30 s (watchdog).
        #expect(Self.milliseconds(waited) < 11_000, "took \(waited) to give up")
        let post = try #require(postResult.all.first)
        guard case .lockTimeout? = post.0 as? AppGroupError else {
            Issue.record("a post against a stopped holder gave \(String(describing: post.0)), not lockTimeout")
            return
        }
        #expect(Self.milliseconds(post.1) >= 990 && Self.milliseconds(post.1) < 11_000)

        // Nothing was written behind the holder's back.
        #expect(try t.defaults().integer(forKey: "n") == 1)
        #expect(try center.generation("n") == 1)
        withExtendedLifetime(holder) {}
    }

    /// Every write lets go of the lock when it is done. Two instances hold two open file
    /// descriptions, so their flocks exclude each other exactly as two processes' do.
    @Test func everyWriteReleasesTheLock() throws {
        let t = try TestRoot()
        let bound = Duration.milliseconds(500)
        let a = try SharedDefaults(container: t.container(), suiteName: TestRoot.group, lockTimeout: bound)
        let b = try SharedDefaults(container: t.container(), suiteName: TestRoot.group, lockTimeout: bound)
        try a.store(1, forKey: "n")
        try b.store(2, forKey: "n")
        try a.store(3, forKey: "n")
        #expect(b.integer(forKey: "n") == 3)
        let c = try DarwinNotificationCenter(deviceRoot: t.root, lockTimeout: bound)
        let d = try DarwinNotificationCenter(deviceRoot: t.root, lockTimeout: bound)
        try c.post("n")
        try d.post("n")
        try c.setState("n", 5)
        #expect(try d.generation("n") == 2 && d.state("n") == 5)
    }

    /// The same bound through the non-throwing UserDefaults-shaped setter: reported, not written.
    @Test func nonThrowingSetterReportsTheTimeout() throws {
        let t = try TestRoot()
        let holder = try StoppedHolder(t)
        let d = try SharedDefaults(container: t.container(), suiteName: TestRoot.group, lockTimeout: .milliseconds(300))
        let reported = Box<AppGroupError>()
        d.onError = { reported.append($0) }
        d.set("x", forKey: "k")
        #expect(reported.count == 1)
        guard case .lockTimeout? = reported.all.first else {
            Issue.record("reported \(reported.all), not lockTimeout")
            return
        }
        #expect(d.string(forKey: "k") == nil)
        #expect(!FileManager.default.fileExists(atPath: t.suitePath))
        withExtendedLifetime(holder) {}
    }

    /// Two threads sharing one `FileLock` (as the threads of a process share its one notify center)
    /// exclude each other: a read-modify-write of the lock file's counter with a pause inside loses
    /// no update. With the flock alone both threads "held" it at once (the same open file
    /// description), and this lost most of them.
    @Test func threadsSharingOneLockExcludeEachOther() throws {
        let t = try TestRoot()
        let lock = try FileLock(directory: t.root.subdirectory("notify"), name: ".lock")
        let perThread = 100
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            for _ in 0..<perThread {
                try? lock.withLock(timeout: .seconds(5)) {
                    let v = lock.readCounter()
                    usleep(50)
                    lock.writeCounter(v + 1)
                }
            }
        }
        #expect(lock.readCounter() == UInt64(2 * perThread))
    }

    /// The thread wait has the same bound: a thread of this process holding the lock turns into
    /// `lockTimeout` for another thread, never a hang.
    @Test func aThreadHoldingTheLockTurnsIntoLockTimeoutForAnother() throws {
        let t = try TestRoot()
        let lock = try FileLock(directory: t.root.subdirectory("notify"), name: ".lock")
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? lock.withLock(timeout: .seconds(5)) {
                held.signal()
                _ = release.wait(timeout: .now() + .seconds(10))
            }
            done.signal()
        }
        #expect(held.wait(timeout: .now() + .seconds(10)) == .success)
        let start = ContinuousClock.now
        #expect(throws: AppGroupError.self) { try lock.lock(timeout: .milliseconds(200)) }
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(150) && waited < .seconds(3), "\(waited)")
        release.signal()
        #expect(done.wait(timeout: .now() + .seconds(10)) == .success)
        try lock.withLock(timeout: .seconds(1)) {}  // free again, from this thread too
    }
}
