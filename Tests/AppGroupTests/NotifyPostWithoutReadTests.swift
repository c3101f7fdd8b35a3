import AppGroup
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// PROTOCOL.md §4.2, "Posting without reading": a post whose name's state this process knows under
/// the current state epoch does not read the record. Every write that may change a state raises
/// the epoch before its rename, so a post never writes a state that is no longer the record's.
@Suite(.timeLimit(.minutes(3))) struct NotifyPostWithoutReadTests {
    /// Word `w` of `notify/.lock` (0 past its end).
    func word(_ t: TestRoot, _ w: Int) throws -> UInt64 {
        let d = Array(try Data(contentsOf: URL(fileURLWithPath: t.path + "/notify/.lock")))
        return (0..<8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64(8 * w + $1 < d.count ? d[8 * w + $1] : 0) }
    }

    func record(_ t: TestRoot, _ name: String) throws -> String {
        try String(decoding: Data(contentsOf: URL(fileURLWithPath: t.path + "/notify/" + name)), as: UTF8.self)
    }

    /// Replaces `notify/<name>` by temp + rename, as a writer that holds no lock would.
    func plant(_ t: TestRoot, _ name: String, _ body: String) throws {
        let tmp = t.path + "/notify/.planted"
        try Data(body.utf8).write(to: URL(fileURLWithPath: tmp))
        #expect(rename(tmp, t.path + "/notify/" + name) == 0)
    }

    /// Sets word `w` of `notify/.lock`, as a writer's `pwrite` does.
    func setWord(_ t: TestRoot, _ w: Int, _ value: UInt64) throws {
        let fd = open(t.path + "/notify/.lock", O_WRONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        var v = value.littleEndian
        #expect(pwrite(fd, &v, 8, off_t(8 * w)) == 8)
    }

    @Test func aPostKeepsTheStateAnotherProcessSet() throws {
        let t = try TestRoot()
        let poster = try DarwinNotificationCenter(deviceRoot: t.root)
        let other = try DarwinNotificationCenter(deviceRoot: t.root)
        try poster.post("x")  // the poster now knows x's state: 0
        #expect(try word(t, 3) == 0)
        try other.setState("x", 7)
        #expect(try word(t, 3) == 1)  // the state epoch moved
        try poster.post("x")
        #expect(try record(t, "x") == "v1 2 7\n")
        try other.setState("y", 9)  // another name's setState: every known state is read again
        try other.setState("x", 8)
        try poster.post("x")
        try poster.post("x")
        #expect(try record(t, "x") == "v1 4 8\n")
        #expect(try word(t, 3) == 3)
        #expect(try poster.state("x") == 8)
    }

    /// A setState killed after its epoch write: whatever it left (its record or the old one) is
    /// read by the next post, never replaced by the state the poster knew.
    @Test func anEpochRaisedBeforeARenameMakesTheNextPostRead() throws {
        let t = try TestRoot()
        let poster = try DarwinNotificationCenter(deviceRoot: t.root)
        try poster.post("x")
        try setWord(t, 3, try word(t, 3) + 1)  // the killed setState's write before its rename
        try plant(t, "x", "v1 1 5\n")  // and its rename; the landed pair never written
        try poster.post("x")
        #expect(try record(t, "x") == "v1 2 5\n")
    }

    /// The trade-off, stated: without an epoch change the poster does not read, so a record an
    /// outsider replaced without the lock is overwritten with the known state; a poster that does
    /// not know the name reads it (and quarantines it when it is not a record).
    @Test func aKnowingPosterDoesNotReadAndAnotherOneDoes() throws {
        let t = try TestRoot()
        let poster = try DarwinNotificationCenter(deviceRoot: t.root)
        try poster.post("x")
        try plant(t, "x", "v1 1 9\n")
        try poster.post("x")
        #expect(try record(t, "x") == "v1 2 0\n")  // not read: the known state 0
        try plant(t, "x", "v1 2 9\n")
        let fresh = try DarwinNotificationCenter(deviceRoot: t.root)
        try fresh.post("x")
        #expect(try record(t, "x") == "v1 3 9\n")  // read: the state kept
        try plant(t, "x", "rubbish")
        let another = try DarwinNotificationCenter(deviceRoot: t.root)
        try another.post("x")
        #expect(try record(t, "x") == "v1 4 0\n")
        #expect(t.root.quarantineRecords().count == 1)
        #expect(try word(t, 3) == 1)  // replacing a corrupt record changed its state: epoch raised
        try plant(t, "x", "v1 4 6\n")
        try fresh.post("x")  // `fresh` knew x under epoch 0: it reads again
        #expect(try record(t, "x") == "v1 5 6\n")
    }

    /// `notify/.lock` reset to nothing by an outsider: the landed count went backwards, so a
    /// knowing poster reads the record again (state and generation) instead of trusting what it knew.
    @Test func aLockFileResetMakesPostersReadAgain() throws {
        let t = try TestRoot()
        let poster = try DarwinNotificationCenter(deviceRoot: t.root)
        for _ in 0..<3 { try poster.post("x") }
        #expect(truncate(t.path + "/notify/.lock", 0) == 0)
        try plant(t, "x", "v1 7 4\n")
        try poster.post("x")
        #expect(try record(t, "x") == "v1 8 4\n")
    }

    /// Generations still never repeat: a knowing post takes 1 + max(known, high-water), so posts of
    /// other processes to the same name move it on.
    @Test func aKnowingPostStaysAboveEveryOtherProcessesPost() throws {
        let t = try TestRoot()
        let a = try DarwinNotificationCenter(deviceRoot: t.root)
        let b = try DarwinNotificationCenter(deviceRoot: t.root)
        var seen: Set<UInt64> = []
        for i in 0..<40 {
            try (i % 3 == 0 ? b : a).post("x")
            let g = try a.generation("x")
            #expect(seen.insert(g).inserted, "generation \(g) repeated")
        }
        #expect(try record(t, "x") == "v1 40 0\n")
    }
}
