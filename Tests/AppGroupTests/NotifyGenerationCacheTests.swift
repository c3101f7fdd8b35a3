import AppGroup
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `generation(_:)` caches records while `notify/.lock`'s landed header matches its high-water
/// (PROTOCOL.md §4.2): it must never return a generation older than the last landed write.
@Suite(.timeLimit(.minutes(3))) struct NotifyGenerationCacheTests {
    /// Words 0-2 of `notify/.lock`: high-water, landed high-water, landed sequence.
    func header(_ t: TestRoot) throws -> [UInt64] {
        let d = try Data(contentsOf: URL(fileURLWithPath: t.path + "/notify/.lock"))
        let padded = Array(d) + [UInt8](repeating: 0, count: max(0, 24 - d.count))
        return (0..<3).map { w in (0..<8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64(padded[8 * w + $1]) } }
    }

    /// A snapshot reads the header once and then answers many names: every generation landed
    /// before it, never one older than that; a post after it is seen by the next snapshot.
    @Test func aSnapshotAnswersEveryNameAsOfItsHeader() throws {
        let t = try TestRoot()
        let c = try DarwinNotificationCenter(deviceRoot: t.root)
        let other = try DarwinNotificationCenter(deviceRoot: t.root)
        for name in ["a", "b", "a", "c"] { try other.post(name) }
        let snap = c.generationSnapshot()
        #expect(["a", "b", "c", "d"].map(snap) == [3, 2, 4, 0])
        #expect(snap("not a valid name/") == 0)
        try other.post("b")
        let later = c.generationSnapshot()
        #expect(later("b") == 5 && later("a") == 3)
        #expect(try c.generation("b") == 5)
        // After every post of another center, a new snapshot agrees with `generation(_:)`.
        for _ in 0..<20 {
            try other.post("a")
            #expect(c.generationSnapshot()("a") == (try c.generation("a")))
        }
    }

    @Test func everyPostAndSetStateLandsTheHighWaterAndOneMoreSequence() throws {
        let t = try TestRoot()
        let c = try DarwinNotificationCenter(deviceRoot: t.root)
        try c.post("a")
        #expect(try header(t) == [1, 1, 1])
        try c.post("b")
        try c.post("a")
        #expect(try header(t) == [3, 3, 3])
        try c.setState("b", 9)  // no new generation, but a landed write
        #expect(try header(t) == [3, 3, 4])
    }

    @Test func aReaderSeesEveryLandedPostOfAnotherProcessCenter() throws {
        let t = try TestRoot()
        let reader = try DarwinNotificationCenter(deviceRoot: t.root)
        let poster = try DarwinNotificationCenter(deviceRoot: t.root)
        #expect(try reader.generation("x") == 0)
        for i in 1...20 {
            try poster.post(i % 2 == 0 ? "x" : "y")
            #expect(try reader.generation("x") == UInt64(i % 2 == 0 ? i : i - 1))
            #expect(try reader.generation("y") == UInt64(i % 2 == 0 ? i - 1 : i))
        }
    }

    /// A center's own post keeps its cache: the posted name reads its new generation, the others
    /// are not read again (the harness posts a wake at every step of virtual time), and a post by
    /// another center is still seen.
    @Test func aCentersOwnPostKeepsItsCacheAndUpdatesThePostedName() throws {
        let t = try TestRoot()
        let c = try DarwinNotificationCenter(deviceRoot: t.root)
        let other = try DarwinNotificationCenter(deviceRoot: t.root)
        try c.post("a")
        #expect(try c.generation("a") == 1)
        #expect(try c.generation("b") == 0)
        try c.post("b")
        #expect(try c.generation("b") == 2)
        #expect(try c.generation("a") == 1)
        try other.post("a")
        #expect(try c.generation("a") == 3)
        try c.post("a")
        #expect(try c.generation("a") == 4)
        #expect(try c.generation("b") == 2)
        // The cache is what answers for a name c did not post: a record replaced behind the
        // protocol's back (neither the high-water nor the landed words raised) is not read until the
        // next landed write.
        try Data("v1 9 0\n".utf8).write(to: URL(fileURLWithPath: t.path + "/notify/.tmp.1.1.g9.b"))
        #expect(rename(t.path + "/notify/.tmp.1.1.g9.b", t.path + "/notify/b") == 0)
        try c.post("a")
        #expect(try c.generation("a") == 5)
        #expect(try c.generation("b") == 2)
        try other.post("c")
        #expect(try c.generation("b") == 9)
        // A post by another center between c's read and c's own post: c's cache was stale before
        // its post, and its post must not make it look current.
        #expect(try c.generation("a") == 5)
        try other.post("a")
        try c.post("d")
        #expect(try c.generation("a") == 7)
        #expect(try c.generation("d") == 8)
    }

    /// A participant that follows the older protocol (raises the high-water, renames, writes no
    /// landed words) must still be seen: the header then disagrees and nothing is cached.
    @Test func aPostThatWritesNoLandedWordsIsStillSeen() throws {
        let t = try TestRoot()
        let reader = try DarwinNotificationCenter(deviceRoot: t.root)
        try reader.post("x")  // header [1, 1, 1]
        #expect(try reader.generation("x") == 1)  // cached under (1, 1)

        // A foreign post of x: high-water 2 first, then the record by rename; landed untouched.
        let lock = open(t.path + "/notify/.lock", O_RDWR)
        try #require(lock >= 0)
        var two = UInt64(2).littleEndian
        #expect(pwrite(lock, &two, 8, 0) == 8)
        close(lock)
        try Data("v1 2 0\n".utf8).write(to: URL(fileURLWithPath: t.path + "/notify/.tmp.1.1.g2.x"))
        #expect(rename(t.path + "/notify/.tmp.1.1.g2.x", t.path + "/notify/x") == 0)
        #expect(try header(t) == [2, 1, 1])
        #expect(try reader.generation("x") == 2)
        // The next landed write settles the header again; the cache starts over from it.
        try reader.post("y")
        #expect(try header(t) == [3, 3, 2])
        #expect(try reader.generation("x") == 2)
        #expect(try reader.generation("y") == 3)
    }

    /// A write under way — high-water raised, record not renamed yet — is not cached past: once
    /// it lands (the landed words move), the reader sees it.
    @Test func aRecordReadDuringAWriteIsNotCachedPastItsLanding() throws {
        let t = try TestRoot()
        let reader = try DarwinNotificationCenter(deviceRoot: t.root)
        try reader.post("x")  // [1, 1, 1]
        #expect(try reader.generation("x") == 1)  // cached under (1, 1)
        let lock = open(t.path + "/notify/.lock", O_RDWR)
        try #require(lock >= 0)
        defer { close(lock) }
        // Step 1 of a post of x: the high-water is raised.
        var two = UInt64(2).littleEndian
        #expect(pwrite(lock, &two, 8, 0) == 8)
        #expect(try reader.generation("x") == 1)  // the record has not moved yet
        // Step 2: the rename; step 3: the landed words.
        try Data("v1 2 0\n".utf8).write(to: URL(fileURLWithPath: t.path + "/notify/.tmp.1.2.g2.x"))
        #expect(rename(t.path + "/notify/.tmp.1.2.g2.x", t.path + "/notify/x") == 0)
        var landed = [UInt64(2).littleEndian, UInt64(2).littleEndian]
        #expect(landed.withUnsafeMutableBytes { pwrite(lock, $0.baseAddress, 16, 8) } == 16)
        #expect(try reader.generation("x") == 2)
    }

    /// A participant that follows the older protocol, read in the middle of its post: the
    /// high-water is raised but the header's landed pair is not, so what the reader reads then is
    /// not cached — its rename, which writes no landed words either, is seen at the next read.
    @Test func aRecordReadWhileTheLandedPairLagsIsNotCached() throws {
        let t = try TestRoot()
        let reader = try DarwinNotificationCenter(deviceRoot: t.root)
        try reader.post("x")  // [1, 1, 1]
        let lock = open(t.path + "/notify/.lock", O_RDWR)
        try #require(lock >= 0)
        defer { close(lock) }
        var two = UInt64(2).littleEndian
        #expect(pwrite(lock, &two, 8, 0) == 8)  // [2, 1, 1]: a write under way
        #expect(try reader.generation("x") == 1)  // read now: the old record
        try Data("v1 2 0\n".utf8).write(to: URL(fileURLWithPath: t.path + "/notify/.tmp.1.3.g2.x"))
        #expect(rename(t.path + "/notify/.tmp.1.3.g2.x", t.path + "/notify/x") == 0)
        #expect(try header(t) == [2, 1, 1])  // no landed words: the header did not move
        #expect(try reader.generation("x") == 2)
    }

    /// A setState that replaces a corrupt record gives it the high-water as its generation
    /// without moving the high-water: the landed count still moves, and the cache with it.
    @Test func aQuarantinedRecordReplacedBySetStateIsSeen() throws {
        let t = try TestRoot()
        let reader = try DarwinNotificationCenter(deviceRoot: t.root)
        let writer = try DarwinNotificationCenter(deviceRoot: t.root)
        try writer.post("a")  // [1, 1, 1]
        try Data("garbage\n".utf8).write(to: URL(fileURLWithPath: t.path + "/notify/q"))
        #expect(try reader.generation("q") == 0)  // unreadable = absent; cached under (1, 1)
        try writer.setState("q", 5)
        #expect(try header(t) == [1, 1, 2])
        #expect(try reader.generation("q") == 1)
        #expect(try reader.state("q") == 5)
    }
}
