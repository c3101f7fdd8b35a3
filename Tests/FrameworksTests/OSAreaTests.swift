import AppGroup
import Foundation
@_spi(ScreenTimeHarness) import ManagedSettings
import ScreenTimeModel
import OSFiles
import Testing

/// `system/` areas: the lock that read-modify-writes take is bounded, so a process SIGSTOPped
/// while holding it costs the app seconds and an error, never a hang.
@Suite(.timeLimit(.minutes(1))) struct OSAreaTests {
    @Test func aLockHeldByAStoppedProcessFailsInSecondsNotHangs() throws {
        let t = try TestDevice()
        let area = try t.device.area(OSPaths.managedSettings)
        // Another open file description holds the area's lock (as a stopped process would).
        let holder = try FileLock(directory: area.directory, name: ".lock")
        try holder.lock(timeout: .seconds(1))
        defer { holder.unlock() }
        let store = ManagedSettingsStore(device: t.device)
        let started = ContinuousClock.now
        #expect(throws: OSFileError.self) { try store.updateShield { $0.applications = [] } }
        let waited = ContinuousClock.now - started
        #expect(waited >= OSArea.lockTimeout - .milliseconds(100) && waited < OSArea.lockTimeout * 3, "waited \(waited)")
        #expect(!t.exists("system/managedsettings/default.json"))
        // Let go: the same write goes through.
        holder.unlock()
        try store.updateShield { $0.applications = [] }
        #expect(t.exists("system/managedsettings/default.json"))
    }
}
