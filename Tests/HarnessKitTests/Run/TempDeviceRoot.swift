import AppGroup
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A device root in a fresh temporary directory, removed with the object.
final class TempDeviceRoot {
    let path: String
    let root: DeviceRoot

    init(_ label: String) throws {
        path = NSTemporaryDirectory() + "sth-\(label)-\(getpid())-\(UUID().uuidString.prefix(8))"
        root = try DeviceRoot(path: path)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
