import CSystemShims
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The one directory the emulated device's processes share (PROTOCOL.md §1).
///
/// Layout: `clock`, `notify/`, `containers/<group-id>/`, `system/`, `quarantine.jsonl`.
public final class DeviceRoot: Sendable {
    public let path: String
    public let directory: SafeDirectory

    public static let environmentVariable = "SCREENTIME_DEVICE_ROOT"

    /// `--device-root` flag, else `$SCREENTIME_DEVICE_ROOT`, else `/dev/shm/screentime-harness-<uid>/device`
    /// when /dev/shm exists (tmpfs: notify round trips ~4x faster than ext4), else the temp dir.
    public static func resolvePath(flag: String? = nil, environment: [String: String] = StandInEnvironment.current) -> String {
        if let flag, !flag.isEmpty { return flag }
        if let env = environment[environmentVariable], !env.isEmpty { return env }
        var st = stat()
        let base: String
        if stat("/dev/shm", &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR && access("/dev/shm", W_OK) == 0 {
            base = "/dev/shm"
        } else {
            base = NSTemporaryDirectory().hasSuffix("/") ? String(NSTemporaryDirectory().dropLast()) : NSTemporaryDirectory()
        }
        return "\(base)/screentime-harness-\(getuid())/device"
    }

    public init(path: String, create: Bool = true) throws {
        self.path = path
        self.directory = try SafeDirectory.openRoot(path, create: create)
    }

    public func subdirectory(_ relative: String, create: Bool = true) throws -> SafeDirectory {
        try directory.directory(relative, create: create)
    }

    // MARK: Quarantine records

    public static let quarantineFileName = "quarantine.jsonl"

    /// Appends one JSON line to `<root>/quarantine.jsonl` (O_APPEND, one write: lines never interleave)
    /// and prints it to stderr. Called when a corrupt file was moved aside (or, for a suite replaced
    /// from outside the protocol, found and left in place: `movedTo` is the file itself).
    public func recordQuarantine(file: String, movedTo: String, reason: String) {
        let record: [String: Any] = ["t": Date().timeIntervalSince1970, "pid": Int(getpid()), "file": file, "movedTo": movedTo, "reason": reason]
        guard let json = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        let line = String(decoding: json, as: UTF8.self) + "\n"
        FileHandle.standardError.write(Data("screentime: quarantined \(file) -> \(movedTo): \(reason)\n".utf8))
        guard let fd = try? directory.openFile(Self.quarantineFileName, flags: O_WRONLY | O_CREAT | O_APPEND) else { return }
        _ = line.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress!, $0.count - 1) }
        close(fd)
    }

    /// The quarantine records written so far (for the harness and tests).
    public func quarantineRecords() -> [String] {
        guard let bytes = try? directory.readFile(Self.quarantineFileName, limitBytes: 16 << 20) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Filesystem type of the root (`tmpfs`, `ext4`, ... or the hex magic).
    public var filesystemType: String {
        let magic = sth_fs_type(directory.fd)
        switch magic {
        case 0x0102_1994: return "tmpfs"
        case 0xEF53: return "ext4"
        case 0x5846_5342: return "xfs"
        case 0x9123_683E: return "btrfs"
        case 0x794C_7630: return "overlayfs"
        case -1: return "unknown"
        default: return "0x" + String(magic, radix: 16)
        }
    }
}
