import AppGroup
import Foundation
import ScreenTimeModel
import OSFiles

/// Apple's `ManagedSettingsStore`: settings the OS enforces, kept by the OS across every process
/// (here: `system/managedsettings/<store>.json`, EMULATED-IOS.md §7.2). Stores with the same name are
/// the same store, in the app and in every extension.
///
/// Every group (`shield`, `application`, `webContent`, …) lives in that one file. Each change
/// replaces the file (temp + rename) and posts `system.managedsettings.changed`; the emulated OS
/// enforces what the union of all stores says (most restrictive wins). Apple's setters cannot
/// fail; here a failed write is printed to stderr (never silent), and `updateShield` (SPI) throws it.
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
    private let device: Result<EmulatedDevice, OSFileError>

    public convenience init() { self.init(named: .default) }

    public init(named name: Name) {
        self.name = name
        self.device = Result(catching: { () throws(OSFileError) -> EmulatedDevice in try EmulatedDevice.current() })
    }

    /// A store on an explicit device (stand-ins with a context, tests).
    @_spi(ScreenTimeHarness) public init(named name: Name = .default, device: EmulatedDevice) {
        self.name = name
        self.device = .success(device)
    }

    /// Apple's `shield`. Reading gives the store's current settings; assigning writes the
    /// properties that changed since that read.
    public var shield: ShieldSettings {
        get { group() }
        set { setGroup(newValue) }
    }

    // Apple's other groups, read and written as `shield` is.

    public var account: AccountSettings {
        get { group() }
        set { setGroup(newValue) }
    }

    public var appStore: AppStoreSettings {
        get { group() }
        set { setGroup(newValue) }
    }

    public var application: ApplicationSettings {
        get { group() }
        set { setGroup(newValue) }
    }

    public var cellular: CellularSettings {
        get { group() }
        set { setGroup(newValue) }
    }

    public var dateAndTime: DateAndTimeSettings {
        get { group() }
        set { setGroup(newValue) }
    }

    public var gameCenter: GameCenterSettings {
        get { group() }
        set { setGroup(newValue) }
    }

    public var media: MediaSettings {
        get { group() }
        set { setGroup(newValue) }
    }

    public var passcode: PasscodeSettings {
        get { group() }
        set { setGroup(newValue) }
    }

    public var safari: SafariSettings {
        get { group() }
        set { setGroup(newValue) }
    }

    public var siri: SiriSettings {
        get { group() }
        set { setGroup(newValue) }
    }

    public var webContent: WebContentSettings {
        get { group() }
        set { setGroup(newValue) }
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
        try area.withLock { () throws(OSFileError) in try area.remove(file, post: OSPaths.managedSettingsChanged) }
    }

    /// Several shield properties in one write, with the error (stand-ins trace it).
    @_spi(ScreenTimeHarness) public func updateShield(_ body: (inout ShieldSettings) -> Void) throws {
        try CrashPoints.pass("shield:" + name.rawValue)
        var s: ShieldSettings = try current()
        body(&s)
        try commit(s)
    }

    private func group<G: StoredSettingsGroup>() -> G {
        do { return try current() } catch {
            EmulatedDevice.report("ManagedSettingsStore(\(name.rawValue)).\(G.group)", error)
            return G()
        }
    }

    private func setGroup<G: StoredSettingsGroup>(_ value: G) {
        do {
            try CrashPoints.pass(G.group + ":" + name.rawValue)
            try commit(value)
        } catch {
            EmulatedDevice.report("ManagedSettingsStore(\(name.rawValue)).\(G.group) = …", error)
        }
    }

    // MARK: Files

    private func location() throws(OSFileError) -> (OSArea, String) {
        guard let file = OSFileName.encode(name.rawValue) else { throw .invalidName(kind: "ManagedSettingsStore", name: name.rawValue) }
        return (try device.get().area(OSPaths.managedSettings), file)
    }

    private func current<G: StoredSettingsGroup>() throws(OSFileError) -> G {
        let (area, file) = try location()
        let record = try area.read(ManagedSettingsStoreRecord.self, file)
        return G(record.map(G.stored(in:)) ?? G.emptyRecord)
    }

    /// One read-modify-write of the store's file under the area's lock: the group's properties
    /// changed since `value` was read replace the file's, every other group is kept as it is.
    private func commit<G: StoredSettingsGroup>(_ value: G) throws(OSFileError) {
        let (area, file) = try location()
        let device = try device.get()
        try area.withLock { () throws(OSFileError) in
            let writer = WriterRecord(pid: device.writer.pid, process: device.writer.process)
            var record =
                try area.read(ManagedSettingsStoreRecord.self, file)
                ?? ManagedSettingsStoreRecord(store: name.rawValue, shield: ShieldSettingsRecord(), writtenAt: device.now(), writtenBy: writer)
            let next = value.merged(into: G.stored(in: record))
            if let why = G.refusal(next) { throw .malformed(path: "\(area.relativePath)/\(file)", reason: "not written: \(why)") }
            G.store(next, in: &record)
            record.version = ManagedSettingsStoreRecord.currentVersion
            record.store = name.rawValue
            record.writtenAt = device.now()
            record.writtenBy = writer
            try area.write(record, file, post: OSPaths.managedSettingsChanged)
        }
    }
}
