import AppGroup
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `--junit /dev/full` replaced the device with a regular file (a FIFO and a
/// character device too; as root, `/dev/null` would go), and a full disk lost the report while the
/// run exited 0. `OutputFile` writes a regular file only, completely or not at all.
@Suite(.serialized, .timeLimit(.minutes(1))) struct OutputFileTests {
    /// A scratch directory under the temp dir, removed at the end.
    final class Scratch {
        let path: String
        init() throws {
            path = NSTemporaryDirectory() + "sth-output-\(getpid())-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func kind(_ name: String) -> mode_t? {
            var st = stat()
            return lstat(path + "/" + name, &st) == 0 ? st.st_mode & S_IFMT : nil
        }
        func names() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
    }

    @Test func writesARegularFileWholeAndReplacesAnOldOne() throws {
        let s = try Scratch()
        let path = s.path + "/junit.xml"
        try OutputFile.write(Array("old".utf8), to: path, what: "--junit")
        try OutputFile.write(Array("new report".utf8), to: path, what: "--junit")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new report")
        #expect(s.names() == ["junit.xml"], "a temp file was left")
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o644)
    }

    /// Each kind of wrong target is refused by name and left exactly as it was.
    @Test(arguments: ["fifo", "socket", "character device", "symlink", "directory"])
    func refusesAndKeepsWhatIsNotARegularFile(kind: String) throws {
        let s = try Scratch()
        let path = s.path + "/target"
        let expectedKind: mode_t
        let words: String
        switch kind {
        case "fifo":
            #expect(mkfifo(path, 0o600) == 0)
            (expectedKind, words) = (S_IFIFO, "is a FIFO, not a regular file")
        case "socket":
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var addr = sockaddr_un()
            addr.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &addr.sun_path) { raw in
                for (i, b) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
            }
            let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
            #expect(bound == 0, "bind: \(String(cString: strerror(errno)))")
            (expectedKind, words) = (S_IFSOCK, "is a socket, not a regular file")
        case "character device":
            // /dev/full's numbers (1, 7): writing it fails, so a wrongly followed write cannot
            // succeed either. Creating a device needs CAP_MKNOD (root in a container has it).
            guard mknod(path, S_IFCHR | 0o600, dev_t((1 << 8) | 7)) == 0 else {
                print("skipped: mknod needs CAP_MKNOD (\(String(cString: strerror(errno))))")
                return
            }
            (expectedKind, words) = (S_IFCHR, "is a character device, not a regular file")
        case "symlink":
            try "kept".write(toFile: s.path + "/real", atomically: false, encoding: .utf8)
            #expect(symlink(s.path + "/real", path) == 0)
            (expectedKind, words) = (S_IFLNK, "is a symlink; name a regular file")
        default:
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            (expectedKind, words) = (S_IFDIR, "is a directory; name a file")
        }
        #expect(throws: OutputFile.Failure.self) { try OutputFile.check(path, what: "--junit") }
        do {
            try OutputFile.write(Array("report".utf8), to: path, what: "--junit")
            Issue.record("wrote over \(kind)")
        } catch {
            #expect(error.description == "--junit \(path): " + error.reason)
            #expect(error.reason.hasPrefix(words), "\(error)")
            #expect(!error.description.contains("\n"))
        }
        #expect(s.kind("target") == expectedKind, "the \(kind) was replaced")
        #expect(!s.names().contains { $0.hasPrefix(".tmp.") }, "a temp file was left")
        if kind == "symlink" { #expect(try String(contentsOfFile: s.path + "/real", encoding: .utf8) == "kept") }
    }

    /// `NSString.deletingLastPathComponent` trapped on Linux for a name without a `/` (`--junit 1`).
    @Test func theDirectoryOfAPathIsFoundByHand() {
        let cases = [("1", "."), ("index.html", "."), ("a/b", "a"), ("a/b/", "a"), ("/x", "/"), ("/", "/"), ("/a/b/c", "/a/b"), ("./x", ".")]
        for (path, directory) in cases { #expect(PathText.directory(of: path) == directory, "\(path)") }
    }

    @Test func aMissingDirectoryIsNamed() {
        #expect(throws: OutputFile.Failure(what: "report.json", path: "/nonexistent-sth/report.json", reason: "directory /nonexistent-sth does not exist")) {
            try OutputFile.write([1], to: "/nonexistent-sth/report.json", what: "report.json")
        }
    }

    /// A full filesystem (a 64 KiB tmpfs, filled): the write fails with one line naming the file
    /// and ENOSPC, the old file is intact, and no temp file is left. Skipped (with the reason
    /// printed) where mounting is not allowed.
    @Test func aFullFilesystemFailsWithOneLineAndKeepsTheOldFile() throws {
        guard let fs = try SmallTmpfs() else { return }
        let path = fs.path + "/report.json"
        try OutputFile.write(Array("old".utf8), to: path, what: "report.json")
        fs.fill()
        do {
            try OutputFile.write([UInt8](repeating: 0x61, count: 64 << 10), to: path, what: "report.json")
            Issue.record("a write to a full filesystem succeeded")
        } catch {
            #expect(error.description == "report.json \(path): cannot write it (write: No space left on device)")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        #expect(!((try? FileManager.default.contentsOfDirectory(atPath: fs.path)) ?? []).contains { $0.hasPrefix(".tmp.") })
    }
}

/// A 64 KiB tmpfs mounted for one test (`mount -t tmpfs -o size=64k`), unmounted after. nil,
/// with the reason printed, where the test may not mount (not root, no CAP_SYS_ADMIN).
final class SmallTmpfs {
    let path: String

    init?() throws {
        path = NSTemporaryDirectory() + "sth-tmpfs-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        if mount("tmpfs", path, "tmpfs", 0, "size=64k,mode=0755") != 0 {
            print("skipped: cannot mount a tmpfs here (\(String(cString: strerror(errno))))")
            rmdir(path)
            return nil
        }
    }

    /// Takes every free byte: the next write on this filesystem fails with ENOSPC.
    func fill() {
        let fd = open(path + "/.filler", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0, count: 4096)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, 1) }) > 0 {}
    }

    deinit {
        umount2(path, Int32(MNT_DETACH))
        rmdir(path)
    }
}
