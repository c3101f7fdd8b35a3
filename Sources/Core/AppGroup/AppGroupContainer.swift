import DeviceProtocol
import Foundation

/// The app groups a process may use. On iOS these come from the signed entitlements; here the
/// harness passes them in the environment: `APP_GROUPS=group.a,group.b`.
public struct Entitlements: Sendable, Equatable {
    public static let environmentVariable = "APP_GROUPS"
    public var appGroups: Set<String>

    public init(appGroups: Set<String>) { self.appGroups = appGroups }

    public static func fromEnvironment(_ env: [String: String] = StandInEnvironment.current) -> Entitlements {
        let raw = env[environmentVariable] ?? ""
        return Entitlements(appGroups: Set(raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }))
    }
}

/// `containers/<group-id>/` — what `containerURL(forSecurityApplicationGroupIdentifier:)` returns;
/// or `sandboxes/<process>/`, one process's own sandbox (its `UserDefaults.standard`, its
/// databases): the same kind of directory, which no other process opens (PROTOCOL.md §1).
public final class AppGroupContainer: Sendable {
    /// The App Group, or `sandbox:<process>` for a process's own sandbox.
    public let groupIdentifier: String
    public let deviceRoot: DeviceRoot
    public let directory: SafeDirectory
    /// Relative to the device root: `containers/<group>` or `sandboxes/<process>`.
    public let relativePath: String

    public var url: URL { URL(fileURLWithPath: directory.path, isDirectory: true) }

    /// Group identifiers: `group.` + 1...200 of `[A-Za-z0-9.-]`, no `..`.
    public static func validate(groupIdentifier g: String) throws {
        let ok = g.hasPrefix("group.") && g.utf8.count <= 206 && g.utf8.count > 6 && !g.contains("..")
            && g.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x2D
            }
        if !ok { throw AppGroupError.invalidGroupIdentifier(g) }
    }

    public init(deviceRoot: DeviceRoot, groupIdentifier: String, entitlements: Entitlements) throws {
        try Self.validate(groupIdentifier: groupIdentifier)
        guard entitlements.appGroups.contains(groupIdentifier) else {
            throw AppGroupError.notEntitled(groupIdentifier: groupIdentifier)
        }
        self.groupIdentifier = groupIdentifier
        self.deviceRoot = deviceRoot
        relativePath = "containers/\(groupIdentifier)"
        self.directory = try deviceRoot.subdirectory(relativePath)
    }

    /// `sandboxes/<process>/`: the private sandbox of the process `process` (a role name:
    /// 1...100 of `[A-Za-z0-9._-]`, not starting with `.`). iOS gives the app and each extension
    /// its own; nothing but that process opens it, and it survives kills and relaunches.
    public init(sandboxOf process: String, deviceRoot: DeviceRoot) throws {
        let ok = !process.isEmpty && process.utf8.count <= 100 && !process.hasPrefix(".")
            && process.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x2D || c == 0x5F
            }
        guard ok else { throw AppGroupError.invalidProcessName(process) }
        groupIdentifier = "sandbox:\(process)"
        self.deviceRoot = deviceRoot
        relativePath = "sandboxes/\(process)"
        directory = try deviceRoot.subdirectory(relativePath)
    }

    /// A subdirectory of the container (created 0700), reached without following symlinks.
    public func subdirectory(_ relative: String) throws -> SafeDirectory {
        try directory.directory(relative)
    }
}

/// The process's view of the device: its root and entitlements, from the environment.
/// Mirrors `FileManager.default.containerURL(forSecurityApplicationGroupIdentifier:)`.
public final class AppGroupEnvironment: Sendable {
    public let deviceRoot: DeviceRoot
    public let entitlements: Entitlements

    public init(deviceRoot: DeviceRoot, entitlements: Entitlements) {
        self.deviceRoot = deviceRoot
        self.entitlements = entitlements
    }

    /// From `SCREENTIME_DEVICE_ROOT` (or the default root) and `APP_GROUPS`; nil when the root
    /// cannot be opened (the reason goes to stderr).
    public static let current: AppGroupEnvironment? = {
        do {
            let root = try DeviceRoot(path: DeviceRoot.resolvePath())
            return AppGroupEnvironment(deviceRoot: root, entitlements: .fromEnvironment())
        } catch {
            FileHandle.standardError.write(Data("screentime: cannot open the device root: \(error)\n".utf8))
            return nil
        }
    }()

    /// nil unless the process is entitled to the group — exactly like iOS — and the harness did
    /// not make the group unavailable to its app code (`unavailableVariable`).
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        guard !Self.unavailableToAppCode else {
            SharedDefaults.faultObserver?("app_group_unavailable", ["group": groupIdentifier, "call": "containerURL"])
            return nil
        }
        return try? container(groupIdentifier).url
    }

    /// `1`: the scenario's `os.appGroupUnavailable` names this role — a misconfigured entitlement as
    /// the field sees it: app code's `UserDefaults(suiteName: "group.…")` and container URL are nil
    /// (the harness's own stand-in runtime still reaches the group). EMULATED-IOS.md §7.11.
    public static let unavailableVariable = "SCREENTIME_APP_GROUP_UNAVAILABLE"

    public static var unavailableToAppCode: Bool { StandInEnvironment.current[unavailableVariable] == "1" }

    public func container(_ groupIdentifier: String) throws -> AppGroupContainer {
        try AppGroupContainer(deviceRoot: deviceRoot, groupIdentifier: groupIdentifier, entitlements: entitlements)
    }
}
