import Foundation
@testable import HarnessKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Who may remove a run's device root: only a sweep that finds its lease free (its harness died),
/// or a lockless root that has not changed for the grace period. Each test has its own runs
/// directory (SCREENTIME_RUNS_DIRECTORY's job for whole harness processes).
@Suite(.timeLimit(.minutes(1))) struct DeviceRootLeaseTests {
    final class RunsDirectory {
        let path: String
        init() throws {
            path = NSTemporaryDirectory() + "sth-lease-\(getpid())-\(UUID().uuidString.prefix(8))/runs"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        func root(_ name: String) throws -> String {
            let p = path + "/" + name
            try FileManager.default.createDirectory(atPath: p + "/containers", withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: p + "/clock", contents: Data("{}".utf8))
            return p
        }
        func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path + "/" + name) }
    }

    @Test func aLeasedRootIsKeptAndARootWhoseHarnessDiedIsRemovedWithItsLock() throws {
        let runs = try RunsDirectory()
        let live = try runs.root("live")
        let lease = try DeviceRootLease(path: live)
        // A second harness cannot take a live root.
        #expect(throws: DeviceRootLease.Busy.self) { try DeviceRootLease(path: live) }
        // A dead harness: its lock file is there, nobody holds it (the kernel let go at its death).
        _ = try runs.root("dead")
        FileManager.default.createFile(atPath: runs.path + "/dead.lock", contents: nil)
        let removed = DeviceRootLease.sweep(runsDirectory: runs.path)
        #expect(removed == [runs.path + "/dead"])
        #expect(!runs.exists("dead") && !runs.exists("dead.lock"))
        #expect(runs.exists("live") && runs.exists("live/clock") && runs.exists("live.lock"))
        // Released (the run removed its root): the lock file goes too, and the name is free again.
        try FileManager.default.removeItem(atPath: live)
        lease.release()
        #expect(!runs.exists("live.lock"))
        let again = try DeviceRootLease(path: live)
        again.release()
    }

    @Test func aLocklessRootIsRemovedOnlyAfterItsGracePeriodAndAnOrphanLockOnlyWhenFree() throws {
        let runs = try RunsDirectory()
        _ = try runs.root("old-style")
        let now = Date()
        #expect(DeviceRootLease.sweep(runsDirectory: runs.path, now: now).isEmpty, "changed just now: kept")
        let grace = Double(DeviceRootLease.locklessGraceSeconds)
        #expect(DeviceRootLease.sweep(runsDirectory: runs.path, now: now.addingTimeInterval(grace - 30)).isEmpty)
        #expect(DeviceRootLease.sweep(runsDirectory: runs.path, now: now.addingTimeInterval(grace + 30)) == [runs.path + "/old-style"])
        // A lock whose root is gone: removed when free, kept while held.
        FileManager.default.createFile(atPath: runs.path + "/orphan.lock", contents: nil)
        let held = try DeviceRootLease(path: runs.path + "/held")
        defer { held.release() }
        #expect(DeviceRootLease.sweep(runsDirectory: runs.path).isEmpty)
        #expect(!runs.exists("orphan.lock"))
        #expect(runs.exists("held.lock"))
        // Hidden entries are never touched.
        _ = try runs.root(".hidden")
        FileManager.default.createFile(atPath: runs.path + "/.hidden.lock", contents: nil)
        #expect(DeviceRootLease.sweep(runsDirectory: runs.path, now: now.addingTimeInterval(grace * 10)).isEmpty)
        #expect(runs.exists(".hidden"))
    }

    /// A root that keeps changing deep inside (a live harness from before leases) is not stale.
    @Test func aLocklessRootThatChangedDeepInsideIsKept() throws {
        let runs = try RunsDirectory()
        let root = try runs.root("busy")
        let grace = Double(DeviceRootLease.locklessGraceSeconds)
        // Everything old but one file deep inside, changed now.
        let old = Date().addingTimeInterval(-grace * 3)
        for p in [root, root + "/containers", root + "/clock"] {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: p)
        }
        FileManager.default.createFile(atPath: root + "/containers/fresh", contents: Data("x".utf8))
        #expect(DeviceRootLease.sweep(runsDirectory: runs.path).isEmpty)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: root + "/containers/fresh")
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: root + "/containers")
        #expect(DeviceRootLease.sweep(runsDirectory: runs.path) == [root])
    }

    @Test func theRunsDirectoryComesFromTheEnvironmentElseTheDefaultBase() {
        #expect(DeviceRootLease.managedRunsDirectory(environment: ["SCREENTIME_RUNS_DIRECTORY": "/x/y"]) == "/x/y")
        #expect(DeviceRootLease.managedRunsDirectory(environment: ["SCREENTIME_RUNS_DIRECTORY": "roots"], currentDirectory: "/work") == "/work/roots")
        let standard = DeviceRootLease.managedRunsDirectory(environment: [:])
        #expect(standard.hasSuffix("/screentime-harness-\(getuid())/runs"), "\(standard)")
        #expect(DeviceRootLease.managedRunsDirectory(environment: ["SCREENTIME_RUNS_DIRECTORY": ""]) == standard)
        // SCREENTIME_DEVICE_ROOT names one device root, not where runs put theirs.
        #expect(DeviceRootLease.managedRunsDirectory(environment: ["SCREENTIME_DEVICE_ROOT": "/elsewhere"]) == standard)
    }
}
