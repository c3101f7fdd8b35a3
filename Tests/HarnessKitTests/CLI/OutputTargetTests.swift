import Foundation
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a verb writes on a full filesystem (a filled 64 KiB tmpfs, or
/// `/dev/full` as standard output) ends in exit 2 and one line naming the file and the reason —
/// never exit 0 with the file lost, never an `NSCocoaErrorDomain Code=640 … UserInfo` dump. The
/// wrong kinds of target (FIFO, socket, symlink, directory) are rows of BadInputTests; the
/// character device, which needs mknod, is OutputFileTests'.
@Suite(.serialized, .timeLimit(.minutes(3))) struct OutputTargetTests {
    static let scenario = """
        name: s
        system: focuspledge
        clock: { rate: 600 }
        duration: 30m
        workload:
          blockedApps: [com.social.feed]
        """

    struct Finished {
        var status: ChildProcess.ExitStatus?
        var stdout: String
        var stderr: String
        var lastErrorLine: String { stderr.split(separator: "\n").last.map(String.init) ?? "" }
    }

    /// Runs `harness`; `stdoutPath`: its standard output goes there instead of being read.
    static func harness(_ args: [String], stdoutPath: String? = nil) throws -> Finished {
        let err = NSTemporaryDirectory() + "sth-stderr-\(getpid())-\(UUID().uuidString.prefix(8))"
        let fd = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let outFd = stdoutPath.map { open($0, O_WRONLY | O_CLOEXEC) } ?? -1
        defer {
            close(fd)
            if outFd >= 0 { close(outFd) }
            unlink(err)
        }
        var env = ProcessInfo.processInfo.environment
        env["SCREENTIME_DEVICE_ROOT"] = nil
        let p = try ChildProcess.spawn(
            try Executables.path(of: "harness"), args, environment: env, captureStdout: stdoutPath == nil, stdoutTo: outFd, stderrTo: fd)
        var out: [String] = []
        while stdoutPath == nil, let l = p.readLine(timeout: .seconds(120)) { out.append(l) }
        let status = p.wait(timeout: .seconds(120)) ?? p.killAndReap()
        return Finished(status: status, stdout: out.joined(separator: "\n"), stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    final class Scratch {
        let path: String
        init() throws {
            path = NSTemporaryDirectory() + "sth-outputs-\(getpid())-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try OutputTargetTests.scenario.write(toFile: path + "/s.yaml", atomically: false, encoding: .utf8)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// `--out DIR//` is spelled once in everything the run writes: a `//` in the server's journal
    /// path kept the path in the normalized history (the normalizer knows one spelling).
    @Test func anOutWithTrailingSlashesIsSpelledOnce() throws {
        let s = try Scratch()
        let done = try Self.harness(["run", s.path + "/s.yaml", "--variant", "hardened", "--out", s.path + "/runs//"])
        #expect(done.status == .exited(0), "\(done.stderr)")
        let run = try #require(try FileManager.default.contentsOfDirectory(atPath: s.path + "/runs").first)
        let history = try String(contentsOfFile: s.path + "/runs/" + run + "/history.jsonl", encoding: .utf8)
        #expect(history.contains(s.path + "/runs/" + run), "the run directory is named in the history")
        #expect(!history.contains("runs//"))
    }

    /// Every check runs before the output directory is made: bad input leaves no `--out` behind.
    @Test(arguments: [
        ["run", "$S/s.yaml", "--junit", "/proc/x/junit.xml"],
        ["run", "$S/s.yaml", "--in-process", "nope"],
        ["run", "$S/s.yaml", "--device-root", "$S/s.yaml"],
        ["explore", "$S/s.yaml", "--junit", "/proc/x/junit.xml"],
        ["replay", "$S/nowhere"],
    ])
    func badInputLeavesNoOutputDirectory(arguments: [String]) throws {
        let s = try Scratch()
        let out = s.path + "/fresh/runs"
        let args = arguments.map { $0.replacingOccurrences(of: "$S", with: s.path) } + ["--out", out]
        let done = try Self.harness(args)
        #expect(done.status == .exited(2), "\(done.stderr)")
        #expect(!FileManager.default.fileExists(atPath: s.path + "/fresh"), "\(args) made \(out)")
    }

    @Test func runWithAJUnitReportOnAFullFilesystemExits2NamingIt() throws {
        guard let fs = try SmallTmpfs() else { return }
        let s = try Scratch()
        fs.fill()
        let junit = fs.path + "/junit.xml"
        let r = try Self.harness(["run", s.path + "/s.yaml", "--variant", "hardened", "--junit", junit, "--out", s.path + "/out"])
        #expect(r.status == .exited(2), "\(r.stderr)")
        #expect(r.lastErrorLine == "error: --junit \(junit): cannot write it (write: No space left on device)")
        #expect(!FileManager.default.fileExists(atPath: junit))
    }

    @Test func runWithItsRunDirectoryOnAFullFilesystemExits2InOneLine() throws {
        guard let fs = try SmallTmpfs() else { return }
        let s = try Scratch()
        fs.fill()
        let r = try Self.harness(["run", s.path + "/s.yaml", "--variant", "hardened", "--out", fs.path + "/out"])
        #expect(r.status == .exited(2), "\(r.stdout)\n\(r.stderr)")
        let said = r.stdout + r.stderr
        #expect(said.contains("No space left on device"), "\(said)")
        #expect(!said.contains("Domain="), "\(said)")
        #expect(!said.contains("UserInfo"), "\(said)")
    }

    @Test(arguments: [["defaults", "write", "group.test", "k", "v"], ["notify", "post", "x"], ["notify", "state", "x", "--set", "3"]])
    func aDeviceRootOnAFullFilesystemExits2InOneLine(verb: [String]) throws {
        guard let fs = try SmallTmpfs() else { return }
        try FileManager.default.createDirectory(atPath: fs.path + "/root", withIntermediateDirectories: true)
        // The verb's own directories exist (a run made them); only the bytes find no room.
        _ = try Self.harness(["notify", "post", "warm", "--device-root", fs.path + "/root"])
        _ = try Self.harness(["defaults", "write", "group.test", "warm", "1", "--device-root", fs.path + "/root"])
        fs.fill()
        let r = try Self.harness(verb + ["--device-root", fs.path + "/root"])
        #expect(r.status == .exited(2), "\(r.stderr)")
        #expect(r.stderr.hasPrefix("error: ") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("No space left on device"), "\(r.stderr)")
    }

    /// `plan`, `systems`, `check` and `normalize` write only standard output: a full one is exit 2.
    @Test(arguments: ["plan", "systems", "check", "normalize"])
    func aFullStandardOutputExits2InOneLine(verb: String) throws {
        let s = try Scratch()
        var args = [verb]
        if verb == "plan" { args.append(s.path + "/s.yaml") }
        if verb == "check" || verb == "normalize" {
            // A finished run to read.
            let run = try Self.harness(["run", s.path + "/s.yaml", "--variant", "hardened", "--out", s.path + "/out"])
            #expect(run.status == .exited(0), "\(run.stderr)")
            let dirs = try FileManager.default.contentsOfDirectory(atPath: s.path + "/out")
            try #require(dirs.count == 1)
            args.append(s.path + "/out/" + dirs[0])
        }
        let r = try Self.harness(args, stdoutPath: "/dev/full")
        #expect(r.status == .exited(2), "\(r.stderr)")
        #expect(r.stderr == "error: cannot write standard output: No space left on device\n")
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
