import AppGroup
import Foundation
@testable import HarnessKit
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The participants' wake FIFOs (PROTOCOL.md §9.1): the harness writes a wake's generation into
/// `system/wake/<pid>` and only that participant wakes; a participant without one is posted
/// `system.wake.<pid>` as before; the FIFOs are the protocol's, not tampering.
@Suite(.timeLimit(.minutes(1))) struct WakeFifoTests {
    /// A device root with `system/`, as a harness that steps time makes it.
    static func root() throws -> TempDeviceRoot {
        let t = try TempDeviceRoot("wake")
        _ = try t.root.subdirectory(SchedulerChannel.directory)
        return t
    }

    final class Seen: @unchecked Sendable {
        let lock = NSCondition()
        var generations: [UInt64] = []
        func add(_ g: UInt64) {
            lock.lock()
            generations.append(g)
            lock.broadcast()
            lock.unlock()
        }
        /// Waits (at most 5 s) until `g` was seen.
        func waitFor(_ g: UInt64) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            let deadline = Date(timeIntervalSinceNow: 5)
            while !generations.contains(g) { if !lock.wait(until: deadline) { return false } }
            return true
        }
    }

    @Test func aWakeReachesItsParticipantWithItsGeneration() throws {
        let r = try Self.root()
        let seen = Seen()
        let pid: Int32 = 4_000_001
        let receiver = try #require(WakeReceiver(deviceRoot: r.root, pid: pid) { seen.add($0) })
        #expect(receiver.path.hasSuffix("/system/wake/\(pid)"))
        let sender = WakeSender(deviceRoot: r.root)
        let name = SchedulerChannel.wakeNotification(pid: pid)
        #expect(sender.generation(ofName: name) == nil, "not woken yet: the notify record says (0)")
        #expect(sender.wake(pid) == 1)
        #expect(seen.waitFor(1))
        #expect(receiver.lastGeneration == 1)
        #expect(sender.generation(ofName: name) == 1)
        // Wakes written while the reader is busy arrive as the newest one, never as an older one.
        for _ in 0..<5 { _ = sender.wake(pid) }
        #expect(seen.waitFor(6))
        #expect(receiver.lastGeneration == 6)
        #expect(seen.generations == seen.generations.sorted() && Set(seen.generations).count == seen.generations.count)
        // Gone: its FIFO is removed and its count forgotten.
        sender.forget(pid)
        #expect(access(receiver.path, F_OK) != 0)
        #expect(sender.generation(ofName: name) == nil)
    }

    /// A participant that died after its FIFO was opened (no reader left): the wake is written to
    /// no one — and the harness lives on (SIGPIPE killed it, exit 141).
    @Test func aWakeToAParticipantThatDiedDoesNotKillTheHarness() throws {
        let r = try Self.root()
        let dir = r.path + "/system/wake"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let pid: Int32 = 4_000_006
        #expect(mkfifo("\(dir)/\(pid)", 0o600) == 0)
        let reader = open("\(dir)/\(pid)", O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        let sender = WakeSender(deviceRoot: r.root)
        #expect(sender.wake(pid) == 1)
        close(reader)  // the participant is gone
        #expect(sender.wake(pid) == 2)
        #expect(sender.wake(pid) == 3)
        // Its children do not inherit the ignored SIGPIPE: a stand-in starts as any process does.
        let child = try ChildProcess.spawn("/bin/sh", ["-c", "grep SigIgn /proc/$$/status"])
        defer { _ = child.killAndReap() }
        let line = try #require(child.readLine(timeout: .seconds(10)))
        let mask = try #require(UInt64(line.split(separator: "\t").last.map(String.init) ?? "", radix: 16))
        #expect(mask & (1 << (UInt64(SIGPIPE) - 1)) == 0, "\(line)")
    }

    @Test func aParticipantWithoutAFifoIsLeftToThePost() throws {
        let r = try Self.root()
        let sender = WakeSender(deviceRoot: r.root)
        #expect(sender.wake(4_000_002) == nil)
        #expect(sender.wake(4_000_002) == nil, "looked for once")
        #expect(sender.generation(ofName: SchedulerChannel.wakeNotification(pid: 4_000_002)) == nil)
        #expect(sender.generation(ofName: "system.inbox.host-app") == nil)
        // A regular file where the FIFO would be is not one.
        let path = r.path + "/system/wake"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: path + "/4000003"))
        #expect(sender.wake(4_000_003) == nil)
    }

    @Test func noWakeFifoWithoutAHarness() throws {
        let bare = try TempDeviceRoot("wake-none")
        #expect(WakeReceiver(deviceRoot: bare.root, pid: 4_000_004) { _ in } == nil, "no system/: nobody steps time")
    }

    @Test func wakeFifosAreNotTamperingButOtherFifosThereAre() throws {
        let r = try Self.root()
        let receiver = try #require(WakeReceiver(deviceRoot: r.root, pid: 4_000_005) { _ in })
        let tamper = DeviceRootTamper(root: r.root, tornWritesPlanned: false)
        #expect(tamper.look() == nil, "\(receiver.path)")
        #expect(mkfifo(r.path + "/system/wake/not-a-pid", 0o600) == 0)
        #expect(tamper.look()?.file == "system/wake/not-a-pid")
    }

    /// Every system/ record is JSON written by temp + rename: one that is not (garbage, over the
    /// size limit) is tampering, judged when its stamp moves; the harness's fault tokens and dot
    /// names (locks, temps) are not records.
    @Test func aSystemRecordThatIsNotJSONIsTampering() throws {
        let r = try Self.root()
        let fm = FileManager.default
        try fm.createDirectory(atPath: r.path + "/system/deviceactivity", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: r.path + "/system/faults", withIntermediateDirectories: true)
        try Data(#"{"name":"a"}"#.utf8).write(to: URL(fileURLWithPath: r.path + "/system/deviceactivity/a.json"))
        try Data("\u{1}x".utf8).write(to: URL(fileURLWithPath: r.path + "/system/deviceactivity/.lock"))
        try Data().write(to: URL(fileURLWithPath: r.path + "/system/faults/torn-x-0"))
        let tamper = DeviceRootTamper(root: r.root, tornWritesPlanned: false)
        #expect(tamper.look() == nil)
        try Data([0x00, 0xFF, 0x13, 0x37]).write(to: URL(fileURLWithPath: r.path + "/system/deviceactivity/a.json"), options: .atomic)
        let found = try #require(tamper.look())
        #expect(found.file == "system/deviceactivity/a.json")
        #expect(found.what.contains("is not a system record (not JSON:"), "\(found.what)")
        try Data(repeating: 0x20, count: (1 << 20) + 1).write(to: URL(fileURLWithPath: r.path + "/system/deviceactivity/a.json"), options: .atomic)
        #expect(tamper.look()?.what.contains("over the 1048576 bytes") == true)
    }

    /// A post whose state is known no longer reads its record (PROTOCOL.md §4.2), so the scan
    /// reads notify records itself: a regular file there that is not a record is tampering.
    @Test func aNotifyRecordThatIsNotOneIsTampering() throws {
        let r = try Self.root()
        let center = try DarwinNotificationCenter(deviceRoot: r.root)
        try center.post("a")
        try center.setState("b", 3)
        let tamper = DeviceRootTamper(root: r.root, tornWritesPlanned: false)
        #expect(tamper.look() == nil)
        try Data("v1 01 0\n".utf8).write(to: URL(fileURLWithPath: r.path + "/notify/a"))
        let found = try #require(tamper.look(), "a regular file: its kind is fine, its content is not")
        #expect(found.file == "notify/a")
        #expect(found.what.contains("notify/a is not a notify record (not a notify record)"), "\(found.what)")
        try Data(repeating: 0x31, count: 65).write(to: URL(fileURLWithPath: r.path + "/notify/a"))
        #expect(tamper.look()?.what.contains("larger than 64 bytes") == true)
        try Data("v1 2 0\n".utf8).write(to: URL(fileURLWithPath: r.path + "/notify/a"))
        try Data(repeating: 0x31, count: 65).write(to: URL(fileURLWithPath: r.path + "/notify/.hidden"))
        #expect(tamper.look() == nil, "a record, and a dot name (temps, the lock) is not one")
        // `check`, the harness's entry point, asks it too.
        try Data("v1 x\n".utf8).write(to: URL(fileURLWithPath: r.path + "/notify/b"))
        #expect(tamper.check(nowNanos: 0, force: true)?.file == "notify/b")
    }

    /// A suite's plist swapped for another — a valid, empty one — is not one the protocol's writers
    /// put in place (each records the plist it renames, PROTOCOL.md §3): the scan finds it, and a
    /// participant that writes over it first records it. A writer killed between its rename and
    /// its record leaves the pending plist, which is no tampering.
    @Test func aSuiteSwappedFromOutsideIsTamperingAndAKilledWritersIsNot() throws {
        let r = try Self.root()
        let group = "group.test.swap"
        let container = try AppGroupContainer(deviceRoot: r.root, groupIdentifier: group, entitlements: Entitlements(appGroups: [group]))
        let suite = try SharedDefaults(container: container, suiteName: group)
        try suite.setValues(["streak": 3])
        let tamper = DeviceRootTamper(root: r.root, tornWritesPlanned: false)
        #expect(tamper.look() == nil, "the plist its writer put in place")
        try suite.setValues(["streak": 4])
        #expect(tamper.look() == nil, "another write: still the writers' plist")
        let prefs = r.path + "/containers/\(group)/Library/Preferences/"
        let plist = prefs + "\(group).plist"
        let empty = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict/></plist>"#
        let lock = try FileLock(directory: r.root.subdirectory("containers/\(group)/Library/Preferences", create: false), name: "\(group).plist.lock")
        func inode(_ path: String) -> UInt64 {
            var st = stat()
            return stat(path, &st) == 0 ? UInt64(st.st_ino) : 0
        }
        // The outsider's file is made while the committed plist still exists: a file made after a
        // plist is replaced may get its freed inode number (see judgeSuite).
        try Data(empty.utf8).write(to: URL(fileURLWithPath: prefs + "outside"))
        // A writer killed after its rename, before it recorded the plist as committed: the plist
        // in place is its pending one.
        try Data(empty.utf8).write(to: URL(fileURLWithPath: prefs + ".killed-writer"))
        try lock.withLock(timeout: .seconds(1)) { lock.writeWords([inode(prefs + ".killed-writer")], at: 2) }
        #expect(rename(prefs + ".killed-writer", plist) == 0)
        #expect(tamper.look() == nil, "a killed writer's pending plist")
        // From outside: neither the committed nor the pending plist.
        #expect(rename(prefs + "outside", plist) == 0)
        let found = try #require(tamper.look())
        #expect(found.file == "containers/\(group)/Library/Preferences/\(group).plist")
        #expect(found.what.contains("was replaced"), "\(found.what)")
        // A writer holding the lock is never judged half done.
        let held = DeviceRootTamper(root: r.root, tornWritesPlanned: false)
        let suitePath = "containers/\(group)/Library/Preferences/\(group).plist"
        try lock.withLock(timeout: .seconds(1)) { #expect(held.judge(suitePath) == .later, "locked: looked at next time") }
        // A participant that writes over the swapped plist before a scan records what it found,
        // and the scan's quarantine reading calls it tampering — even where the scenario tears suites.
        try suite.setValues(["streak": 5])
        #expect(held.judge(suitePath) == .fine, "written over: the writers' plist again")
        let torn = DeviceRootTamper(root: r.root, tornWritesPlanned: true)
        let recorded = try #require(torn.foreignContent())
        #expect(recorded.what.contains(SharedDefaults.replacedFromOutside), "\(recorded.what)")
        #expect(suite.integer(forKey: "streak") == 5)
        // A plist that appears during the run with no writer's record at all.
        let fresh = DeviceRootTamper(root: r.root, tornWritesPlanned: false)
        #expect(fresh.judge(suitePath) == .fine)
        _ = fresh.look()  // the first look: what is there then was there before the run
        try Data(empty.utf8).write(to: URL(fileURLWithPath: prefs + "other.plist"))
        guard case .foreign(_, let what) = fresh.judge("containers/\(group)/Library/Preferences/other.plist") else {
            Issue.record("a plist that appeared after the first look, with no writer's record, was not called foreign")
            return
        }
        #expect(what.contains("appeared with no writer's record"), "\(what)")
        let other = DeviceRootTamper(root: r.root, tornWritesPlanned: false)
        #expect(other.look()?.what.contains("appeared with no writer's record") != true, "there at the first look")
    }
}
