import AppGroup
import Foundation
import OSFiles

#if canImport(Glibc)
import Glibc
#endif

/// A fresh device root (tmpfs when there is one) and an `EmulatedDevice` on it, removed at the end.
final class TestDevice: @unchecked Sendable {
    let path: String
    let device: EmulatedDevice

    init(_ label: String = #function, timeZone: String = "UTC") throws {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let safe = label.filter { $0.isLetter || $0.isNumber }.prefix(40)
        path = "\(base)/sth-fw-\(getpid())-\(safe)-\(UUID().uuidString.prefix(8))"
        device = try EmulatedDevice(path: path, process: "test-app")
        // A fixed device time: 2 March 2026, 08:00 UTC, at real rate.
        try DeviceClock.write(DeviceClock.Configuration(epochUnixSeconds: 1_772_438_400, rate: 1, timeZone: timeZone), to: device.root)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The raw bytes of a system file (nil when absent).
    func file(_ relative: String) -> String? {
        (try? String(contentsOfFile: "\(path)/\(relative)", encoding: .utf8))
    }

    func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: "\(path)/\(relative)") }

    /// Another process's view of the same device (its own notify center).
    func otherProcess(_ name: String) throws -> EmulatedDevice {
        try EmulatedDevice(root: device.root, center: DarwinNotificationCenter(deviceRoot: device.root), process: name)
    }
}

/// Polls `condition` for at most `seconds`.
func eventually(_ seconds: Double = 3, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(2000)
    }
    return condition()
}
