import AppGroup
import Foundation
@testable import HarnessKit
import Testing
import TreeWatch

#if canImport(Glibc)
import Glibc
#endif

/// The recursive watch (libinotifytools) and the tamper check it drives: a change anywhere below
/// the root is seen as an event naming the file — in directories made after the watch began too —
/// and only that file is judged, without a look at the whole root.
@Suite(.serialized, .timeLimit(.minutes(2))) struct TamperWatchTests {
    static func now() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds) }

    /// The check called as the run's main loop calls it, every millisecond, until it finds
    /// something or 2 s passed.
    static func firstFinding(_ tamper: DeviceRootTamper) -> (file: String, what: String)? {
        let deadline = now() + 2_000_000_000
        while now() < deadline {
            if let found = tamper.check(nowNanos: now()) { return found }
            usleep(1000)
        }
        return nil
    }

    /// Events until `done` holds of what came so far, or 2 s.
    static func events(_ watch: TreeWatch, until done: ([TreeWatch.Event]) -> Bool) -> [TreeWatch.Event] {
        var all: [TreeWatch.Event] = []
        let deadline = DispatchTime.now().uptimeNanoseconds + 2_000_000_000
        while !done(all) && DispatchTime.now().uptimeNanoseconds < deadline {
            all += watch.events()
            if !done(all) { usleep(1000) }
        }
        return all
    }

    @Test func aNewDirectoryIsFollowedAndWhatItHeldBeforeItsWatchIsFound() throws {
        let t = try TempDeviceRoot("treewatch")
        let watch = try TreeWatch(root: t.path)
        defer { watch.close() }
        // Made and written faster than the watch can follow: found by the walk of the new directory.
        try FileManager.default.createDirectory(atPath: t.path + "/a/b/c", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: t.path + "/a/b/c/early"))
        var got = Self.events(watch) { $0.contains { $0.path == "a/b/c/early" } }
        #expect(got.contains { $0.path == "a" && $0.kind == .created && $0.isDirectory })
        #expect(got.contains { $0.path == "a/b/c/early" }, "\(got)")
        // Once followed, a write there is an event of its own; a rename names both ends.
        usleep(20_000)
        _ = watch.events()
        try Data("y".utf8).write(to: URL(fileURLWithPath: t.path + "/a/b/c/.tmp.1.late"))
        #expect(rename(t.path + "/a/b/c/.tmp.1.late", t.path + "/a/b/c/late") == 0)
        got = Self.events(watch) { $0.contains { $0.path == "a/b/c/late" } }
        let out = try #require(got.first { $0.kind == .movedOut })
        let into = try #require(got.first { $0.kind == .movedIn })
        #expect(out.path == "a/b/c/.tmp.1.late" && into.path == "a/b/c/late" && out.cookie == into.cookie && out.cookie != 0)
        #expect(got.contains { $0.kind == .written && $0.path == "a/b/c/.tmp.1.late" })
        #expect(TreeWatch.watchCount >= 4, "the root, a, a/b, a/b/c")
    }

    @Test func twoTreesGetTheirOwnEventsAndTheRootsRemovalIsSaid() throws {
        // Plain directories: a directory held open (as a DeviceRoot holds its root) is said
        // removed only once the last descriptor of it closes.
        let base = NSTemporaryDirectory() + "sth-treewatch-\(getpid())-\(UUID().uuidString.prefix(8))"
        let one = (path: base + "-1", unused: 0)
        let two = (path: base + "-2", unused: 0)
        for d in [one.path, two.path] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(atPath: two.path) }
        let w1 = try TreeWatch(root: one.path)
        let w2 = try TreeWatch(root: two.path)
        defer { w2.close() }
        try Data("1".utf8).write(to: URL(fileURLWithPath: one.path + "/only-one"))
        try Data("2".utf8).write(to: URL(fileURLWithPath: two.path + "/only-two"))
        let got2 = Self.events(w2) { $0.contains { $0.path == "only-two" } }
        let got1 = Self.events(w1) { $0.contains { $0.path == "only-one" } }
        #expect(got1.allSatisfy { $0.path == "only-one" } && !got1.isEmpty, "\(got1)")
        #expect(got2.allSatisfy { $0.path == "only-two" } && !got2.isEmpty, "\(got2)")
        try FileManager.default.removeItem(atPath: one.path)
        let gone = Self.events(w1) { $0.contains { $0.kind == .rootGone } }
        #expect(gone.contains { $0.kind == .rootGone }, "\(gone)")
        w1.close()
        #expect(w1.events().isEmpty, "closed")
        try Data("3".utf8).write(to: URL(fileURLWithPath: two.path + "/still"))
        #expect(Self.events(w2) { $0.contains { $0.path == "still" } }.contains { $0.path == "still" }, "the other tree goes on")
    }

    @Test func theLastTreeClosedReleasesTheInstanceAndItIsNotInherited() throws {
        let t = try TempDeviceRoot("treewatch-cloexec")
        let watch = try TreeWatch(root: t.path)
        // Every inotify fd of this process is close-on-exec (the library's is made so).
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        var inotify = 0
        for name in fds {
            guard let fd = Int32(name), let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name),
                target == "anon_inode:inotify"
            else { continue }
            inotify += 1
            #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0, "inotify fd \(fd) is inherited by children")
        }
        #expect(inotify >= 1)
        watch.close()
        #expect(TreeWatch.watchCount == 0)
    }

    /// A planted file in each area is found from its event alone: one full look (the first check),
    /// then none — each finding names the file.
    @Test(arguments: [
        ("notify/planted", "garbage"),
        ("containers/group.t/Library/Preferences/group.t.plist", "garbage"),
        ("containers/group.t/Heartbeats/host.json", "garbage"),
        ("containers/group.t/app-file", "fifo"),
        ("sandboxes/host/Library/Preferences/standard.plist", "garbage"),
        ("sandboxes/host/db.sqlite", "symlink"),
        ("system/authorization/familycontrols.json", "garbage"),
        ("system/deviceactivity/new/record.json", "garbage"),
    ])
    func eachAreaIsJudgedFromItsEvent(_ file: String, _ what: String) throws {
        let t = try TempDeviceRoot("tamper-events")
        let fm = FileManager.default
        for dir in ["notify", "containers/group.t/Library/Preferences", "containers/group.t/Heartbeats", "sandboxes/host/Library/Preferences", "system/authorization"] {
            try fm.createDirectory(atPath: t.path + "/" + dir, withIntermediateDirectories: true)
        }
        let tamper = DeviceRootTamper(root: t.root, tornWritesPlanned: false, environment: [:])
        #expect(tamper.watched)
        #expect(tamper.check(nowNanos: Self.now()) == nil)
        #expect(tamper.fullLooks == 1)
        let path = t.path + "/" + file
        try fm.createDirectory(atPath: PathText.directory(of: path), withIntermediateDirectories: true)
        switch what {
        case "fifo": #expect(mkfifo(path, 0o600) == 0)
        case "symlink": #expect(symlink("/etc/hostname", path) == 0)
        default: try Data("\u{1}not what any participant writes".utf8).write(to: URL(fileURLWithPath: path))
        }
        let found = Self.firstFinding(tamper)
        let f = try #require(found, "\(file) (\(what)) was not found")
        #expect(f.file == file, "\(f.what)")
        #expect(tamper.fullLooks == 1, "found from its event, not by a look at the whole root")
        #expect(tamper.eventsTaken > 0)
        #expect(tamper.check(nowNanos: Self.now(), force: true) == nil, "one tamper line per run")
    }

    /// A suite written over in place keeps its inode, so its writers' record still matches: its
    /// content says it — a plist that does not decode, or a key no writer writes.
    @Test(arguments: ["\u{1}garbage", #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>big</key><integer>18446744073709551615</integer></dict></plist>"#])
    func aSuiteWrittenOverInPlaceIsJudgedByItsContent(_ content: String) throws {
        let t = try TempDeviceRoot("tamper-in-place")
        let group = "group.test.inplace"
        let container = try AppGroupContainer(deviceRoot: t.root, groupIdentifier: group, entitlements: Entitlements(appGroups: [group]))
        let suite = try SharedDefaults(container: container, suiteName: group)
        try suite.setValues(["streak": 3])
        let tamper = DeviceRootTamper(root: t.root, tornWritesPlanned: false, environment: [:])
        #expect(tamper.check(nowNanos: Self.now()) == nil)
        let file = "containers/\(group)/Library/Preferences/\(group).plist"
        let fd = open(t.path + "/" + file, O_WRONLY | O_TRUNC)
        #expect(fd >= 0)
        _ = content.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        let found = Self.firstFinding(tamper)
        let f = try #require(found)
        #expect(f.file == file)
        #expect(f.what.contains("holds something no writer of the protocol writes"), "\(f.what)")
        // Where the scenario tears suites itself, a malformed suite is the fault's.
        let torn = DeviceRootTamper(root: t.root, tornWritesPlanned: true, environment: [:])
        #expect(torn.judge(file) == .fine)
    }

    /// A suite planted over and written over by a participant before the check looks: the
    /// participant's record of what it found (`quarantine.jsonl`) is seen from its event.
    @Test(arguments: 0..<20)
    func aSuiteWrittenOverBeforeTheCheckLooksIsFoundFromTheWritersRecord(_ n: Int) throws {
        let t = try TempDeviceRoot("tamper-overwritten")
        let group = "group.test.over"
        let container = try AppGroupContainer(deviceRoot: t.root, groupIdentifier: group, entitlements: Entitlements(appGroups: [group]))
        let suite = try SharedDefaults(container: container, suiteName: group)
        try suite.setValues(["n": 1])
        let tamper = DeviceRootTamper(root: t.root, tornWritesPlanned: false, environment: [:])
        #expect(tamper.check(nowNanos: Self.now()) == nil)
        let file = "containers/\(group)/Library/Preferences/\(group).plist"
        try Data("\u{1}planted".utf8).write(to: URL(fileURLWithPath: t.path + "/containers/\(group)/Library/Preferences/.plant"))
        #expect(rename(t.path + "/containers/\(group)/Library/Preferences/.plant", t.path + "/" + file) == 0)
        try suite.setValues(["n": 2])
        #expect(tamper.judge(file) == .fine, "written over: the writers' plist again")
        let found = Self.firstFinding(tamper)
        #expect(found?.file == file, "\(String(describing: found)); quarantine: \(t.root.quarantineRecords())")
    }

    /// Every writer renames its own temp file into place: a valid notify record renamed in from
    /// any other name — or from outside the root — is someone else's, though its content passes.
    @Test(arguments: [".planted", "outside"])
    func aProtocolFileRenamedInFromAnythingButAWritersTempIsForeign(_ from: String) throws {
        let t = try TempDeviceRoot("tamper-rename")
        let center = try DarwinNotificationCenter(deviceRoot: t.root)
        try center.post("a")
        let tamper = DeviceRootTamper(root: t.root, tornWritesPlanned: false, environment: [:])
        #expect(tamper.check(nowNanos: Self.now()) == nil)
        let source = from == "outside" ? t.path + "-outside" : t.path + "/notify/" + from
        try Data("v1 9 0\n".utf8).write(to: URL(fileURLWithPath: source))
        defer { try? FileManager.default.removeItem(atPath: t.path + "-outside") }
        #expect(rename(source, t.path + "/notify/a") == 0)
        #expect(tamper.judge("notify/a") == .fine, "its content is a record")
        let found = Self.firstFinding(tamper)
        #expect(found?.file == "notify/a")
        #expect(found?.what.contains(from == "outside" ? "renamed into place from outside the device root" : "renamed into place from notify/.planted") == true, "\(String(describing: found))")
    }

    @Test func aWritersTempIsKnownByItsName() {
        #expect(DeviceRootTamper.isWritersTemp("notify/.tmp.42.7.g12.a", of: "notify/a"))
        #expect(DeviceRootTamper.isWritersTemp("containers/g/Library/Preferences/.tmp.42.7.g.plist", of: "containers/g/Library/Preferences/g.plist"))
        #expect(!DeviceRootTamper.isWritersTemp("notify/.tmp.42.7.g12.a", of: "notify/b"), "another name's temp")
        #expect(!DeviceRootTamper.isWritersTemp("system/.tmp.42.7.a", of: "notify/a"), "another directory")
        #expect(!DeviceRootTamper.isWritersTemp("notify/.tmp.x.7.a", of: "notify/a"), "no pid")
        #expect(!DeviceRootTamper.isWritersTemp(nil, of: "notify/a"))
        #expect(DeviceRootTamper.isProtocolFile("notify/a") && DeviceRootTamper.isProtocolFile("system/deviceactivity/x.json"))
        #expect(!DeviceRootTamper.isProtocolFile("containers/g/app-file") && !DeviceRootTamper.isProtocolFile("system/faults/torn-x-0"))
        #expect(!DeviceRootTamper.isProtocolFile("notify/.lock") && !DeviceRootTamper.isProtocolFile("system/scheduler"))
    }

    /// The protocol's own writes — notify posts, suite writes, heartbeats — are judged and fine.
    @Test func theProtocolsOwnWritesAreNotTampering() throws {
        let t = try TempDeviceRoot("tamper-clean")
        let tamper = DeviceRootTamper(root: t.root, tornWritesPlanned: false, environment: [:])
        #expect(tamper.check(nowNanos: Self.now()) == nil)
        let center = try DarwinNotificationCenter(deviceRoot: t.root)
        let group = "group.test.clean"
        let container = try AppGroupContainer(deviceRoot: t.root, groupIdentifier: group, entitlements: Entitlements(appGroups: [group]))
        let suite = try SharedDefaults(container: container, suiteName: group)
        let heart = try HeartbeatWriter(container: container, writer: "host", intervalSeconds: 1, clock: DeviceClock(deviceRoot: nil))
        for i in 0..<50 {
            try center.post("n\(i % 5)")
            try suite.setValues(["streak": i, "name": "s-\(i)"])
            try heart.beat()
            #expect(tamper.check(nowNanos: Self.now()) == nil)
        }
        usleep(20_000)
        #expect(tamper.check(nowNanos: Self.now()) == nil)
        #expect(tamper.filesJudged > 0 && tamper.fullLooks == 1)
    }

    /// More changes than the kernel queues before the check reads them (`IN_Q_OVERFLOW`): the
    /// watch says events were lost, the check looks at the whole root once, and the history is told.
    @Test func aQueueOverflowIsOneFullLookAndSaidSo() throws {
        let queued = Int((try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 16_384
        guard queued <= 200_000 else {
            print("skipped: fs.inotify.max_queued_events is \(queued): too many files to overflow it here")
            return
        }
        let t = try TempDeviceRoot("tamper-overflow")
        try FileManager.default.createDirectory(atPath: t.path + "/containers/group.t", withIntermediateDirectories: true)
        let tamper = DeviceRootTamper(root: t.root, tornWritesPlanned: false, environment: [:])
        #expect(tamper.check(nowNanos: Self.now()) == nil)
        _ = tamper.takeNotes()
        let dir = t.path + "/containers/group.t/"
        for i in 0..<(queued + 1_000) {
            let fd = open(dir + "f\(i)", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            if fd >= 0 { close(fd) }
        }
        #expect(tamper.check(nowNanos: Self.now() + 1_000_000_000) == nil, "the app's own files: nothing foreign")
        #expect(tamper.fullLooks == 2, "the first check's look, and one after the overflow")
        let notes = tamper.takeNotes()
        #expect(notes.contains { $0.contains("IN_Q_OVERFLOW") && $0.contains("looked at whole") }, "\(notes)")
    }

    /// Without a watch (`STH_TAMPER_DETECTION=scan`) the root is looked at whole every 20 ms, and
    /// the history is told why.
    @Test func theScanFallbackSaysSo() throws {
        let t = try TempDeviceRoot("tamper-scan")
        let tamper = DeviceRootTamper(root: t.root, tornWritesPlanned: false, environment: [DeviceRootTamper.detectionVariable: "scan"])
        #expect(!tamper.watched)
        #expect(tamper.takeNotes().first?.contains("looked at whole every 20 ms") == true)
        try FileManager.default.createDirectory(atPath: t.path + "/notify", withIntermediateDirectories: true)
        #expect(mkfifo(t.path + "/notify/x", 0o600) == 0)
        #expect(tamper.check(nowNanos: 1_000_000_000)?.file == "notify/x")
    }
}
