import AppGroup
import Foundation

/// `ManagedSettingsStore` with the shape the seeds use: `store.shield.applications = tokens`.
/// Application tokens are bundle ids here. Each assignment replaces
/// `system/managedsettings/<store>.json` atomically and posts `system.managedsettings.changed`;
/// the emulated OS's ground truth is what that file says.
public final class ManagedSettingsStore: @unchecked Sendable {
    public struct Shield: Codable, Equatable, Sendable {
        public var applications: Set<String>?
        public var applicationCategoriesAll: Bool = false

        public init(applications: Set<String>? = nil, applicationCategoriesAll: Bool = false) {
            self.applications = applications
            self.applicationCategoriesAll = applicationCategoriesAll
        }
    }

    public let name: String
    let directory: SafeDirectory
    let center: DarwinNotificationCenter
    private let mutex = NSLock()
    private var current = Shield()
    public var onChange: (@Sendable (Shield) -> Void)?

    public init(name: String = "default", deviceRoot: DeviceRoot, center: DarwinNotificationCenter) throws {
        try SafeDirectory.validate(component: name + ".json")
        self.name = name
        self.directory = try deviceRoot.subdirectory(EmulatedOSPaths.managedSettings)
        self.center = center
        if let bytes = try directory.readFile(name + ".json", limitBytes: 1 << 20),
            let s = try? JSONDecoder().decode(Shield.self, from: Data(bytes))
        {
            current = s
        }
    }

    public var shield: Shield {
        mutex.lock()
        defer { mutex.unlock() }
        return current
    }

    /// Replaces the shield settings (nil applications = no shield).
    public func setShield(_ s: Shield) throws {
        mutex.lock()
        current = s
        mutex.unlock()
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys]
        try directory.writeAtomically(name + ".json", bytes: Array(try enc.encode(s)), fsync: false)
        try center.post(EmulatedOSPaths.managedSettingsChanged)
        onChange?(s)
    }

    /// The emulated OS's view: every store's shielded applications (harness side).
    public static func shieldedApplications(deviceRoot: DeviceRoot) -> Set<String> {
        guard let dir = try? deviceRoot.subdirectory(EmulatedOSPaths.managedSettings) else { return [] }
        var out: Set<String> = []
        for n in (try? dir.entries(limit: 1000)) ?? [] where n.hasSuffix(".json") && !n.hasPrefix(".") {
            if let b = try? dir.readFile(n, limitBytes: 1 << 20), let s = try? JSONDecoder().decode(Shield.self, from: Data(b)) {
                out.formUnion(s.applications ?? [])
            }
        }
        return out
    }
}
