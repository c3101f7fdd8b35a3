import AppGroup
import Foundation
import OSFiles

/// One `EmulatedDevice` per device root for the harness-side readers (opening a notify center
/// per scan would cost a lock file open each time).
enum OSDevices {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var devices: [String: EmulatedDevice] = [:]
    /// Runs open only a handful of roots; a bound keeps a long test process from hoarding fds.
    static let maxDevices = 64

    static func device(for root: DeviceRoot) -> EmulatedDevice? {
        lock.lock()
        defer { lock.unlock() }
        if let d = devices[root.path], d.root === root { return d }
        guard let center = try? DarwinNotificationCenter(deviceRoot: root) else { return nil }
        if devices.count >= maxDevices { devices.removeAll() }
        let d = EmulatedDevice(root: root, center: center, process: "harness")
        devices[root.path] = d
        return d
    }
}
