import AppGroup
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Before the first unlock after a reboot the stores are files no process can open (Quinn, Apple
/// developer forums thread 15685: the container is NSFileProtectionCompleteUntilFirstUserAuthentication
/// and `NSUserDefaults` inherits it; "If I force-quit and relaunch the app all of my values come back").
@Suite(.timeLimit(.minutes(1))) struct DataProtectionTests {
    func protected(_ t: TestRoot) throws -> SharedDefaults {
        let d = try t.defaults()
        d.dataProtection = true
        return d
    }

    func lock(_ t: TestRoot) { _ = FileManager.default.createFile(atPath: t.path + "/" + SharedDefaults.lockedMarker, contents: Data()) }
    func unlock(_ t: TestRoot) { unlink(t.path + "/" + SharedDefaults.lockedMarker) }

    @Test func aProcessThatReadsBeforeTheFirstUnlockSeesNothingAndKeepsThatView() throws {
        let t = try TestRoot()
        let before = try t.defaults()
        before.set(364, forKey: "streak")
        before.set("a", forKey: "other")
        lock(t)
        let d = try protected(t)
        let faults = Box<(String, [String: String])>()
        d.onFault = { faults.append(($0, $1)) }
        #expect(d.object(forKey: "streak") == nil, "read while locked: empty")
        #expect(faults.all.map(\.0) == ["locked_read"])
        // Written while locked: the file cannot be opened — nothing lands.
        d.set(1, forKey: "streak")
        #expect(try t.defaults().integer(forKey: "streak") == 364)
        #expect(faults.all.last?.0 == "locked_write" && faults.all.last?.1["keys"] == "streak")
        #expect(d.integer(forKey: "streak") == 1, "its own view keeps its write")
        unlock(t)
        // Unlocked, the process still holds its view; a write lands only the keys it changed.
        #expect(d.object(forKey: "other") == nil, "keeps its cache for its life")
        d.set(2, forKey: "streak")
        let fresh = try t.defaults()
        #expect(fresh.integer(forKey: "streak") == 2 && fresh.string(forKey: "other") == "a", "no other key lost")
        // A process started after the unlock reads the file.
        #expect(try protected(t).string(forKey: "other") == "a")
    }

    @Test func offOrUnlockedNothingChanges() throws {
        let t = try TestRoot()
        try t.defaults().set(5, forKey: "k")
        lock(t)
        #expect(try t.defaults().integer(forKey: "k") == 5, "data protection off: the marker means nothing")
        unlock(t)
        let d = try protected(t)
        #expect(d.integer(forKey: "k") == 5)
        try t.defaults().set(6, forKey: "k")
        #expect(d.integer(forKey: "k") == 6, "an unpinned reader follows the file")
    }
}
