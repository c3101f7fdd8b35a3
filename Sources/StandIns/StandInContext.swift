import AppGroup
import FocusPledge
import Foundation
import History
import ScreenTimeShims

#if canImport(Glibc)
import Glibc
#endif

/// What every stand-in gets from its environment, as iOS would give it: the device root
/// (`SCREENTIME_DEVICE_ROOT`), its entitlements (`APP_GROUPS`), and from the harness the run
/// directory for its trace (`SCREENTIME_RUN_DIR`) and the variant (`SCREENTIME_VARIANT`).
public final class StandInContext: @unchecked Sendable {
    public let process: String
    public let variant: Variant
    public let root: DeviceRoot
    public let runDirectory: String
    public let clock: DeviceClock
    public let center: DarwinNotificationCenter
    public let defaults: SharedDefaults
    public let trace: TraceLog

    public struct SetupError: Error, CustomStringConvertible {
        public let description: String
    }

    public init(process: String, environment env: [String: String] = ProcessInfo.processInfo.environment) throws {
        self.process = process
        guard let rootPath = env[DeviceRoot.environmentVariable] else { throw SetupError(description: "\(DeviceRoot.environmentVariable) is not set") }
        guard let run = env["SCREENTIME_RUN_DIR"] else { throw SetupError(description: "SCREENTIME_RUN_DIR is not set") }
        guard let v = Variant(rawValue: env["SCREENTIME_VARIANT"] ?? "hardened") else {
            throw SetupError(description: "SCREENTIME_VARIANT must be as-written or hardened, not \(env["SCREENTIME_VARIANT"] ?? "")")
        }
        variant = v
        runDirectory = run
        root = try DeviceRoot(path: rootPath, create: false)
        let clock = DeviceClock(deviceRoot: root)
        self.clock = clock
        center = try DarwinNotificationCenter(deviceRoot: root)
        let container = try AppGroupContainer(deviceRoot: root, groupIdentifier: FocusPledgeKeys.appGroupId, entitlements: .fromEnvironment(env))
        defaults = try SharedDefaults(container: container, suiteName: FocusPledgeKeys.suiteName)
        trace = try TraceLog(runDirectory: run, process: process, deviceTime: { clock.nowUnixSeconds() })
    }

    /// The suite as it is now; a store error is traced and reads as empty (the app would see nil).
    public func snapshot() -> [String: PropertyListValue] {
        do { return try defaults.snapshot() } catch {
            trace.log("store_error", ["op": "read", "error": "\(error)"])
            return [:]
        }
    }

    /// Applies a `setDefaults` effect: one atomic write, or separate writes in order (each its
    /// own rename: a kill between them leaves the earlier ones, as on iOS).
    public func apply(_ writes: [DefaultsWrite], atomic: Bool) {
        do {
            if atomic {
                try defaults.update { d in for w in writes { d[w.key] = w.value } }
            } else {
                for w in writes { try defaults.update { d in d[w.key] = w.value } }
            }
        } catch {
            trace.log("store_error", ["op": "write", "error": "\(error)"])
        }
    }

    public static func fail(_ process: String, _ message: String) -> Never {
        FileHandle.standardError.write(Data("\(process): \(message)\n".utf8))
        exit(2)
    }
}
