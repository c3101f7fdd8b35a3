import AppGroup
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The device as the app-facing frameworks see it: the root, its Darwin notification center, its
/// clock, and who is writing. Apple's parameterless initialisers (`ManagedSettingsStore()`,
/// `DeviceActivityCenter()`, `UNUserNotificationCenter.current()`) use `current()`, opened once
/// from `SCREENTIME_DEVICE_ROOT`; stand-ins and tests pass one explicitly.
public final class EmulatedDevice: @unchecked Sendable {
    public let root: DeviceRoot
    public let center: DarwinNotificationCenter
    public let clock: DeviceClock
    /// Recorded as `writtenBy.process` / `registeredBy.process`.
    public let process: String

    /// Optional: the role name the harness gave this process (else the executable's name).
    public static let processVariable = StandInEnvironment.processVariable

    public init(root: DeviceRoot, center: DarwinNotificationCenter, clock: DeviceClock? = nil, process: String? = nil) {
        self.root = root
        self.center = center
        self.clock = clock ?? DeviceClock(deviceRoot: root)
        self.process = process ?? Self.defaultProcessName()
    }

    /// Opens the device at `path` (created if missing).
    public convenience init(path: String, process: String? = nil) throws {
        let root = try DeviceRoot(path: path)
        self.init(root: root, center: try DarwinNotificationCenter(deviceRoot: root), process: process)
    }

    static func defaultProcessName() -> String {
        let env = StandInEnvironment.current[processVariable] ?? ""
        return env.isEmpty ? ProcessInfo.processInfo.processName : env
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var cached: Result<EmulatedDevice, OSFileError>?
    /// In-process stand-ins' devices, by root and process (bounded).
    nonisolated(unsafe) private static var threadOwn: [String: EmulatedDevice] = [:]

    /// This process's device (`SCREENTIME_DEVICE_ROOT`, else the default root of PROTOCOL.md §1),
    /// opened once.
    public static func current() throws(OSFileError) -> EmulatedDevice {
        lock.lock()
        defer { lock.unlock() }
        if StandInEnvironment.isThreadOwn {
            // A stand-in the harness runs in its own process: the device of its environment.
            let key = DeviceRoot.resolvePath() + "\u{0}" + defaultProcessName()
            if let d = threadOwn[key] { return d }
            do {
                let d = try EmulatedDevice(path: DeviceRoot.resolvePath())
                if threadOwn.count >= 64 { threadOwn = [:] }
                threadOwn[key] = d
                return d
            } catch let e as AppGroupError {
                throw .io(e)
            } catch {
                throw .noDevice("\(error)")
            }
        }
        if cached == nil {
            do {
                cached = .success(try EmulatedDevice(path: DeviceRoot.resolvePath()))
            } catch let e as AppGroupError {
                cached = .failure(.io(e))
            } catch {
                cached = .failure(.noDevice("\(error)"))
            }
        }
        return try cached!.get()
    }

    public var writer: WriterIdentity { WriterIdentity(pid: StandInEnvironment.processID, process: process) }

    /// Device time now.
    public func now() -> Date { clock.now() }

    /// The device's time zone (the clock file's `timeZone`, PROTOCOL.md §2).
    public var timeZone: TimeZone { clock.timeZone }

    /// A `system/` area of this device (created if missing).
    public func area(_ relativePath: String) throws(OSFileError) -> OSArea {
        do {
            return OSArea(relativePath: relativePath, directory: try root.subdirectory(relativePath), center: center)
        } catch let e as AppGroupError {
            throw .io(e)
        } catch {
            throw .noDevice("\(error)")
        }
    }

    /// A failure a non-throwing Apple-shaped API cannot return: one line on stderr, so it is
    /// never silent (the app on iOS would not see it either).
    public static func report(_ api: String, _ error: any Error) {
        FileHandle.standardError.write(Data("screentime: \(api): \(error)\n".utf8))
    }
}

/// pid + role, without depending on the model's record type here.
public struct WriterIdentity: Sendable, Equatable {
    public let pid: Int32
    public let process: String
}
