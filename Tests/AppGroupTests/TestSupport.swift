import AppGroup
import Foundation
import Supervision

#if canImport(Glibc)
import Glibc
#endif

/// A fresh device root under /dev/shm (or the temp dir), removed when the test ends.
final class TestRoot: @unchecked Sendable {
    let path: String
    let root: DeviceRoot
    static let group = "group.test"

    init(_ label: String = #function) throws {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let safe = label.filter { $0.isLetter || $0.isNumber }.prefix(40)
        path = "\(base)/sth-test-\(getpid())-\(safe)-\(UUID().uuidString.prefix(8))"
        root = try DeviceRoot(path: path)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func container(_ group: String = TestRoot.group) throws -> AppGroupContainer {
        try AppGroupContainer(deviceRoot: root, groupIdentifier: group, entitlements: Entitlements(appGroups: [group]))
    }

    func defaults(_ group: String = TestRoot.group) throws -> SharedDefaults {
        try SharedDefaults(container: container(group), suiteName: group)
    }

    var suitePath: String { "\(path)/containers/\(Self.group)/Library/Preferences/\(Self.group).plist" }

    func helper(_ args: [String]) throws -> ChildProcess {
        try ChildProcess.spawn(try Executables.path(of: "sth-test-helper"), args)
    }
}

/// Waits for `condition` for at most `timeout`, polling.
func eventually(timeout: Duration, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(2000)
    }
    return condition()
}

/// Thread-safe collection for callbacks.
final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ t: T) { lock.lock(); items.append(t); lock.unlock() }
    var all: [T] { lock.lock(); defer { lock.unlock() }; return items }
    var count: Int { all.count }
}
