import AppGroup
import Foundation
import ScreenTimeModel
import SystemFiles

/// Apple's `ManagedSettingsStore`: settings the OS enforces, kept by the OS across every process
/// (here: `system/managedsettings/<store>.json`, PROTOCOL.md §7.2). Stores with the same name are
/// the same store, in the app and in every extension.
///
/// Each change replaces the store's file (temp + rename) and posts `system.managedsettings.changed`;
/// the emulated OS shields what the union of all stores says. Apple's setters cannot fail; here a
/// failed write is printed to stderr (never silent), and `updateShield` (SPI) throws it.
public final class ManagedSettingsStore: @unchecked Sendable {
    /// Apple's `ManagedSettingsStore.Name`.
    public struct Name: RawRepresentable, Hashable, Codable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// `ManagedSettingsStore()`'s store.
        public static let `default` = Name("default")
    }

    public let name: Name
    private let device: Result<EmulatedDevice, SystemFileError>

    public convenience init() { self.init(named: .default) }

    public init(named name: Name) {
        self.name = name
        self.device = Result(catching: { () throws(SystemFileError) -> EmulatedDevice in try EmulatedDevice.current() })
    }

    /// A store on an explicit device (stand-ins with a context, tests).
    @_spi(ScreenTimeHarness) public init(named name: Name = .default, device: EmulatedDevice) {
        self.name = name
        self.device = .success(device)
    }

    /// Apple's `shield`. Reading gives the store's current settings; assigning writes the
    /// properties that changed since that read.
    public var shield: ShieldSettings {
        get {
            do { return try currentShield() } catch {
                EmulatedDevice.report("ManagedSettingsStore(\(name.rawValue)).shield", error)
                return ShieldSettings()
            }
        }
        set {
            do {
                try CrashPoints.pass("shield:" + name.rawValue)
                try commit(newValue)
            } catch {
                EmulatedDevice.report("ManagedSettingsStore(\(name.rawValue)).shield = …", error)
            }
        }
    }

    /// Apple's `clearAllSettings()`: the store holds nothing; its file is deleted.
    public func clearAllSettings() {
        do { try clearAllSettingsThrowing() } catch {
            EmulatedDevice.report("ManagedSettingsStore(\(name.rawValue)).clearAllSettings()", error)
        }
    }

    /// `clearAllSettings()` with the error (stand-ins trace it).
    @_spi(ScreenTimeHarness) public func clearAllSettingsThrowing() throws {
        try CrashPoints.pass("shield.clear:" + name.rawValue)
        let (area, file) = try location()
        try area.withLock { () throws(SystemFileError) in try area.remove(file, post: SystemPaths.managedSettingsChanged) }
    }

    /// Several shield properties in one write, with the error (stand-ins trace it).
    @_spi(ScreenTimeHarness) public func updateShield(_ body: (inout ShieldSettings) -> Void) throws {
        try CrashPoints.pass("shield:" + name.rawValue)
        var s = try currentShield()
        body(&s)
        try commit(s)
    }

    // MARK: Files

    private func location() throws(SystemFileError) -> (SystemArea, String) {
        guard let file = SystemFileName.encode(name.rawValue) else { throw .invalidName(kind: "ManagedSettingsStore", name: name.rawValue) }
        return (try device.get().area(SystemPaths.managedSettings), file)
    }

    private func currentShield() throws(SystemFileError) -> ShieldSettings {
        let (area, file) = try location()
        let record = try area.read(ManagedSettingsStoreRecord.self, file)
        return ShieldSettings(record?.shield ?? ShieldSettingsRecord())
    }

    private func commit(_ s: ShieldSettings) throws(SystemFileError) {
        let (area, file) = try location()
        let device = try device.get()
        try area.withLock { () throws(SystemFileError) in
            let current = try area.read(ManagedSettingsStoreRecord.self, file)?.shield ?? ShieldSettingsRecord()
            let next = s.merged(into: current)
            let record = ManagedSettingsStoreRecord(
                store: name.rawValue, shield: next, writtenAt: device.now(),
                writtenBy: WriterRecord(pid: device.writer.pid, process: device.writer.process))
            try area.write(record, file, post: SystemPaths.managedSettingsChanged)
        }
    }
}
