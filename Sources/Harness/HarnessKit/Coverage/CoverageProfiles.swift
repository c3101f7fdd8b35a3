import AppGroup
import Foundation
import Supervision

#if canImport(Glibc)
import Glibc
#endif

/// The LLVM coverage profiles of a run's stand-in processes (`harness coverage`, docs/COVERAGE.md).
///
/// Every process the run starts gets its own profile file, named by the run, its role and its
/// launch number (`LLVM_PROFILE_FILE`), and is listed in `launches.tsv` beside them. The stand-ins
/// are built for LLVM's *continuous* mode (`CoverageBuild.swiftFlags`: the `%c` in the file name
/// maps the counters onto the file itself), so a process SIGKILLed by the nemesis, at a crash point
/// or by iOS has written every counter it reached: the kernel keeps the shared mapping's pages.
/// What can still be lost — a process killed before the profile runtime opened its file (it ran
/// no app code yet), a file cut short — is counted per role, never silently dropped.
package enum CoverageProfiles {
    package static let environmentVariable = "LLVM_PROFILE_FILE"
    package static let launchesFile = "launches.tsv"

    /// The profile's file name without its extension: `<run>.<role>.<launch>`. A `%` (which the
    /// profile runtime would expand) becomes `_`.
    package static func fileName(run: String, role: String, launch: Int) -> String {
        "\(run).\(role).\(launch)".replacingOccurrences(of: "%", with: "_")
    }

    /// The `LLVM_PROFILE_FILE` pattern of `name`: continuous mode (`%c`), the file `<name>.profraw`.
    package static func pattern(_ name: String) -> String { name + "%c.profraw" }

    /// Lists a launch: `<role>\t<pid>\t<name>` (appended; one short write, so lines never interleave).
    package static func recordLaunch(directory: String, role: String, pid: Int32, profile: String) {
        let fd = open(directory + "/" + launchesFile, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let line = Array("\(role)\t\(pid)\t\(profile)\n".utf8)
        _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    package struct Launch: Sendable, Equatable {
        package var role: String
        package var pid: Int32
        package var profile: String
    }

    /// The launches listed in `directory` (a malformed line is skipped: the file is the harness's own).
    package static func launches(directory: String) -> [Launch] {
        guard let text = try? String(contentsOfFile: directory + "/" + launchesFile, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard f.count == 3, let pid = Int32(f[1]) else { return nil }
            return Launch(role: String(f[0]), pid: pid, profile: String(f[2]))
        }
    }
}

/// What the runs' profiles added up to, per role: how many processes were started, how many
/// profiles were merged, and which were lost (no file, an empty one, one llvm-profdata refused).
package struct ProfileTally: Codable, Sendable, Equatable {
    package var processes = 0
    package var merged = 0
    package var lost = 0
    /// The first few lost profiles and why (`<file>: <reason>`).
    package var lostExamples: [String] = []

    package init() {}

    mutating func lose(_ what: String) {
        lost += 1
        if lostExamples.count < 5 { lostExamples.append(what) }
    }
}

/// Merges each run's raw profiles into one indexed profile per role (`<role>.profdata`) as the
/// suite goes, and removes the raw files: a 24 h run starts hundreds of processes, each raw
/// profile ~0.4 MB. Bounded: each llvm-profdata call has a time limit.
package struct CoverageMerger {
    package let tools: CoverageTools
    /// Where the processes write (`ScenarioRunner.Options.profileDirectory`) and the merged profiles go.
    package let directory: String
    package private(set) var tallies: [String: ProfileTally] = [:]
    static let mergeTimeout: Duration = .seconds(600)

    package init(tools: CoverageTools, directory: String) {
        self.tools = tools
        self.directory = directory
    }

    /// The merged profile of a role (`<system>/<role>`): `<system>.<role>.profdata`.
    package func profile(role: String) -> String { directory + "/" + Self.fileSafe(role) + ".profdata" }

    static func fileSafe(_ key: String) -> String { key.replacingOccurrences(of: "/", with: ".") }

    /// Takes the raw profiles of the launches listed so far into the roles' merged profiles;
    /// `batch`: also merge them, every role together, into this file (one run's coverage, for
    /// `--fuzz`; not written when none was merged).
    package mutating func absorb(batch: String? = nil) throws {
        let launches = CoverageProfiles.launches(directory: directory)
        unlink(directory + "/" + CoverageProfiles.launchesFile)
        var byRole: [String: [String]] = [:]
        for l in launches {
            tallies[l.role, default: ProfileTally()].processes += 1
            let path = directory + "/" + l.profile + ".profraw"
            var st = stat()
            if stat(path, &st) != 0 {
                tallies[l.role]!.lose("\(l.profile).profraw: not written (pid \(l.pid))")
            } else if st.st_size == 0 {
                tallies[l.role]!.lose("\(l.profile).profraw: empty (pid \(l.pid))")
                unlink(path)
            } else {
                byRole[l.role, default: []].append(path)
            }
        }
        if let batch, !byRole.isEmpty {
            unlink(batch)
            let list = directory + "/.inputs-batch.txt"
            try OutputFile.write(Data((byRole.values.flatMap { $0 }.joined(separator: "\n") + "\n").utf8), to: list, what: "llvm-profdata's input list")
            _ = try tools.run(tools.profdata, ["merge", "-sparse", "--failure-mode=warn", "--input-files=" + list, "-o", batch], timeout: Self.mergeTimeout)
            unlink(list)
        }
        for (role, raws) in byRole.sorted(by: { $0.key < $1.key }) {
            let out = profile(role: role)
            let list = directory + "/.inputs-\(Self.fileSafe(role)).txt"
            var inputs = raws
            if FileManager.default.fileExists(atPath: out) { inputs.insert(out, at: 0) }
            try OutputFile.write(Data((inputs.joined(separator: "\n") + "\n").utf8), to: list, what: "llvm-profdata's input list")
            let result = try tools.run(
                tools.profdata, ["merge", "-sparse", "--failure-mode=warn", "--input-files=" + list, "-o", out + ".new"], timeout: Self.mergeTimeout)
            unlink(list)
            let refused = Set(raws.filter { result.stderr.contains($0) })
            if result.status != 0 || !FileManager.default.fileExists(atPath: out + ".new") {
                unlink(out + ".new")
                for r in raws { tallies[role]!.lose("\((r as NSString).lastPathComponent): llvm-profdata failed: \(result.firstLine)") }
            } else {
                rename(out + ".new", out)
                for r in raws {
                    if refused.contains(r) {
                        tallies[role]!.lose("\((r as NSString).lastPathComponent): \(result.line(mentioning: r) ?? "refused by llvm-profdata")")
                    } else {
                        tallies[role]!.merged += 1
                    }
                }
            }
            for r in raws { unlink(r) }
        }
    }
}

/// The toolchain programs coverage needs: `swift` (to build), `llvm-profdata`, `llvm-cov`, and
/// `swift-demangle` if there is one (function names in the HTML report).
package struct CoverageTools: Sendable {
    package var swift: String
    package var profdata: String
    package var cov: String
    package var demangle: String?

    /// Found on `PATH`, the llvm tools also beside the real `swift` (a toolchain keeps them together).
    package static func find(environment: [String: String]) throws(CoverageError) -> CoverageTools {
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        func onPath(_ name: String) -> String? {
            path.map { $0 + "/" + name }.first { access($0, X_OK) == 0 }
        }
        guard let swift = onPath("swift") else {
            throw CoverageError("swift is not on PATH: coverage builds the stand-ins with the Swift toolchain (put its usr/bin on PATH)")
        }
        let real = URL(fileURLWithPath: swift).resolvingSymlinksInPath().path
        let toolchain = PathText.directory(of: real)
        func tool(_ name: String) -> String? {
            let beside = toolchain + "/" + name
            return access(beside, X_OK) == 0 ? beside : onPath(name)
        }
        guard let profdata = tool("llvm-profdata"), let cov = tool("llvm-cov") else {
            throw CoverageError("llvm-profdata and llvm-cov are not beside \(real) nor on PATH: coverage needs the Swift toolchain's llvm tools")
        }
        return CoverageTools(swift: swift, profdata: profdata, cov: cov, demangle: tool("swift-demangle"))
    }

    package struct Result: Sendable {
        package var status: Int32
        package var stdout: Data
        package var stderr: String
        package var firstLine: String {
            stderr.split(separator: "\n").first.map(String.init) ?? "exit status \(status)"
        }
        func line(mentioning text: String) -> String? {
            stderr.split(separator: "\n").first { $0.contains(text) }.map(String.init)
        }
    }

    /// Runs `executable` to its end (bounded by `timeout`: then it is killed and this throws), its
    /// stdout into `stdoutFile` when given (else kept in memory), its stderr kept.
    package func run(_ executable: String, _ arguments: [String], timeout: Duration, stdoutFile: String? = nil, stderrFile: String? = nil) throws(CoverageError)
        -> Result
    {
        let scratch = FileManager.default.temporaryDirectory.path + "/sth-coverage-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let outPath = stdoutFile ?? scratch + ".out"
        let errPath = stderrFile ?? scratch + ".err"
        let outFd = open(outPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        let errFd = open(errPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer {
            if outFd >= 0 { close(outFd) }
            if errFd >= 0 { close(errFd) }
            if stdoutFile == nil { unlink(outPath) }
            if stderrFile == nil { unlink(errPath) }
        }
        guard outFd >= 0, errFd >= 0 else { throw CoverageError("cannot write \(outFd < 0 ? outPath : errPath): \(String(cString: strerror(errno)))") }
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(executable, arguments, captureStdout: false, stdoutTo: outFd, stderrTo: errFd)
        } catch { throw CoverageError("\(error)") }
        guard let status = child.wait(timeout: timeout) else {
            child.killAndReap()
            throw CoverageError("\((executable as NSString).lastPathComponent) \(arguments.first ?? "") did not finish within \(timeout): killed")
        }
        let code: Int32
        switch status {
        case .exited(let c): code = c
        case .signalled(let s): code = 128 + s
        }
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        let stdout = stdoutFile == nil ? ((try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data()) : Data()
        return Result(status: code, stdout: stdout, stderr: stderr)
    }
}

package struct CoverageError: Error, CustomStringConvertible, Sendable {
    package var description: String
    package init(_ description: String) { self.description = description }
}
