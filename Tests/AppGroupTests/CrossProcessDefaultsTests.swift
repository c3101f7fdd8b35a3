import AppGroup
import Foundation
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Real processes, real signals: the store under concurrent writers and SIGKILL.
@Suite(.timeLimit(.minutes(3))) struct CrossProcessDefaultsTests {
    @Test func threeProcessesIncrementWithoutLosingAnUpdate() throws {
        let t = try TestRoot()
        let perProcess = 2000
        let procs = try (0..<3).map { _ in
            try t.helper(["increment", "--root", t.path, "--key", "counter", "--count", String(perProcess)])
        }
        for p in procs {
            let line = p.readLine(timeout: .seconds(240))
            #expect(line?.hasPrefix("done ") == true, "helper said \(line ?? "nothing")")
            #expect(p.wait(timeout: .seconds(10)) == .exited(0))
        }
        #expect(try t.defaults().integer(forKey: "counter") == 3 * perProcess)
        // One generation bump per write, none lost either (the bump happens under the lock).
        let lock = try #require(FileManager.default.contents(atPath: t.suitePath + ".lock"))
        try #require(lock.count >= 8)
        #expect(lock.prefix(8).reversed().reduce(0) { $0 << 8 | UInt64($1) } == UInt64(3 * perProcess))
    }

    /// A reader that parses the raw suite file as fast as it can, counting unparseable reads.
    final class RawReader: @unchecked Sendable {
        let path: String
        let lock = NSLock()
        var reads = 0
        var bad: [String] = []
        var stop = false
        let done = DispatchSemaphore(value: 0)
        init(path: String) { self.path = path }
        func start() {
            Thread { [self] in
                while true {
                    lock.lock()
                    if stop { lock.unlock(); break }
                    lock.unlock()
                    if let bytes = FileManager.default.contents(atPath: path) {
                        let ok = (try? PropertyListCodec.decodeDictionary(Array(bytes))) != nil
                        lock.lock()
                        reads += 1
                        if !ok { bad.append(String(decoding: bytes.prefix(80), as: UTF8.self)) }
                        lock.unlock()
                    }
                }
                done.signal()
            }.start()
        }
        func finish() -> (Int, [String]) {
            lock.lock()
            stop = true
            lock.unlock()
            done.wait()
            return (reads, bad)
        }
    }

    @Test func writerKilledAtRandomPointsNeverTearsTheFileNorLosesAnAck() throws {
        let t = try TestRoot()
        try t.defaults().set(0, forKey: "n")
        let reader = RawReader(path: t.suitePath)
        reader.start()
        var rng = SystemRandomNumberGenerator()
        var lastAck = 0
        var kills = 0
        for _ in 0..<500 {
            let w = try t.helper(["writer", "--root", t.path, "--key", "n"])
            // Let it write for a random while (0-3 ms after its first ack), then SIGKILL it
            // wherever it is: inside a write, between temp and rename, holding the lock...
            guard let first = w.readLine(timeout: .seconds(10)), first.hasPrefix("ack ") else {
                Issue.record("writer did not start")
                w.killAndReap()
                break
            }
            usleep(UInt32.random(in: 0...3000, using: &rng))
            w.signal(SIGKILL)
            #expect(w.wait(timeout: .seconds(5)) == .signalled(SIGKILL))
            kills += 1
            // Every ack the writer printed before dying must be in the file.
            var acks = [first]
            while let l = w.readLine(timeout: .milliseconds(1)) { acks.append(l) }
            for a in acks { if let v = Int(a.dropFirst(4)) { lastAck = max(lastAck, v) } }
            let stored = try t.defaults().integer(forKey: "n")
            #expect(stored >= lastAck, "acknowledged \(lastAck) but the file has \(stored)")
            lastAck = max(lastAck, stored)
        }
        let (reads, bad) = reader.finish()
        #expect(kills == 500)
        #expect(bad.isEmpty, "unparseable reads: \(bad.prefix(3))")
        #expect(reads > 500)
        #expect(t.root.quarantineRecords().isEmpty)
        // Temp files of the dead writers are swept by the next writer to open the suite, once
        // they are older than SafeDirectory.staleTempSeconds (PROTOCOL.md §1): age them.
        let dir = (t.suitePath as NSString).deletingLastPathComponent
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) where name.hasPrefix(".tmp.") {
            let old = Date().addingTimeInterval(-Double(SafeDirectory.staleTempSeconds) - 60)
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: dir + "/" + name)
        }
        _ = try t.defaults()
        let temps = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".tmp.") }
        #expect(temps.isEmpty, "left behind: \(temps.prefix(3))")
    }

    /// A reader that finds the suite corrupt moves it aside only under the lock, and only if it is
    /// still the bad file: a writer that replaced it meanwhile (temp + rename, while the reader
    /// waited for the lock) keeps its good file, and the reader reads it.
    @Test func quarantineRechecksTheFileUnderTheLock() throws {
        let t = try TestRoot()
        try t.defaults().set(1, forKey: "a")
        let holder = try t.helper(["hold-lock", "--root", t.path])
        defer { holder.killAndReap() }
        #expect(holder.readLine(timeout: .seconds(10)) == "locked")
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: t.suitePath))
        let reader = try t.defaults()
        let seen = Box<Int>()
        let done = DispatchSemaphore(value: 0)
        Thread {
            seen.append(reader.integer(forKey: "a"))  // finds garbage, waits for the lock
            done.signal()
        }.start()
        usleep(300_000)
        // The holder's own write lands (as any writer's: temp + rename), then it lets go.
        let tmp = (t.suitePath as NSString).deletingLastPathComponent + "/.tmp.\(holder.pid).1.\(TestRoot.group).plist"
        try Data(PropertyListCodec.encode(["a": .integer(2)])).write(to: URL(fileURLWithPath: tmp))
        #expect(rename(tmp, t.suitePath) == 0)
        holder.killAndReap()
        #expect(done.wait(timeout: .now() + .seconds(10)) == .success)
        #expect(seen.all == [2])
        #expect(t.root.quarantineRecords().isEmpty)
        let dir = (t.suitePath as NSString).deletingLastPathComponent
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".corrupt-") }.isEmpty)
    }

    /// A writer the nemesis holds SIGSTOPped mid-write for more than `staleTempSeconds` leaves an
    /// old temp: the sweep keeps it while the writer lives (its rename would fail) and removes a
    /// dead writer's. (A fresh temp is never swept whatever its pid says, so only old temps test
    /// the pid check.)
    @Test func sweepKeepsALiveWritersOldTempAndRemovesADeadOnes() throws {
        let t = try TestRoot()
        try t.defaults().set(1, forKey: "a")
        let gone = try ChildProcess.spawn("/bin/true", [])
        #expect(gone.wait(timeout: .seconds(10)) == .exited(0))
        let dir = (t.suitePath as NSString).deletingLastPathComponent
        let liveTemp = dir + "/.tmp.\(getppid()).1.\(TestRoot.group).plist"
        let deadTemp = dir + "/.tmp.\(gone.pid).1.\(TestRoot.group).plist"
        let old = Date().addingTimeInterval(-Double(SafeDirectory.staleTempSeconds) - 60)
        for path in [liveTemp, deadTemp] {
            try Data("partial".utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path)
        }
        #expect(kill(getppid(), 0) == 0, "the live writer stand-in (our parent) is alive")
        _ = try t.defaults()  // opening the suite sweeps
        #expect(FileManager.default.fileExists(atPath: liveTemp), "a live writer's temp was swept")
        #expect(!FileManager.default.fileExists(atPath: deadTemp), "a dead writer's temp was kept")
    }

    /// Opening a suite sweeps temp files of dead writers — never those of a live one (its rename
    /// would fail and its write be lost).
    @Test func sweepNeverRemovesALiveWritersTemp() throws {
        let t = try TestRoot()
        let w = try t.helper(["writer", "--root", t.path, "--key", "n"])
        defer { w.killAndReap() }
        #expect(w.readLine(timeout: .seconds(10))?.hasPrefix("ack ") == true)
        // Sweep for a second, side by side with the writer: its temp exists for a part of every
        // write, so thousands of sweeps see it many times.
        let end = ContinuousClock.now + .seconds(1)
        var sweeps = 0
        while ContinuousClock.now < end {
            _ = try t.defaults()  // each one sweeps
            sweeps += 1
            if sweeps % 20 == 0 {  // keep the writer's stdout pipe from filling up
                for _ in 0..<500 { if w.readLine(timeout: .milliseconds(1)) == nil { break } }
            }
        }
        #expect(w.poll() == nil, "the writer died after \(sweeps) sweeps: \(String(describing: w.poll()))")
        #expect(w.readLine(timeout: .seconds(5))?.hasPrefix("ack ") == true)
    }
}
