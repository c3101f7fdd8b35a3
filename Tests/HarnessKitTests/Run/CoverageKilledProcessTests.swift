import AppGroup
import Foundation
import Supervision
import Testing

@testable import HarnessKit

#if canImport(Glibc)
import Glibc
#endif

/// `harness coverage` counts what a SIGKILLed process ran: a real Swift program, compiled with the
/// flags the coverage build uses, reaches a branch and is killed there; its profile is merged as
/// the command merges a run's, and the branch is covered. The same program in LLVM's default mode
/// (a profile written at exit) leaves nothing — the reason for continuous mode — and the report
/// says it was lost; so does a garbled profile beside a good one.
@Suite(.serialized, .timeLimit(.minutes(3))) struct CoverageKilledProcessTests {
    static let program = """
        import Glibc
        let arg = CommandLine.arguments[1]
        if arg == "deep" {
            print("reached"); fflush(stdout)
            sleep(600)
        } else {
            print("shallow")
        }

        """

    @Test func aBranchReachedOnlyByAKilledProcessIsCovered() throws {
        let tools = try CoverageTools.find(environment: ProcessInfo.processInfo.environment)
        let swiftc = PathText.directory(of: URL(fileURLWithPath: tools.swift).resolvingSymlinksInPath().path) + "/swiftc"
        let dir = FileManager.default.temporaryDirectory.path + "/sth-coverage-test-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir + "/profiles", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/killed.swift"
        try Self.program.write(toFile: source, atomically: true, encoding: .utf8)
        let built = try tools.run(swiftc, CoverageBuild.swiftFlags + [source, "-o", dir + "/killed"], timeout: .seconds(120))
        #expect(built.status == 0, "swiftc: \(built.stderr)")

        // Continuous mode (the pattern the run gives every process), then LLVM's default.
        for (role, pattern) in [("t/continuous", CoverageProfiles.pattern("continuous")), ("t/at-exit", "at-exit.profraw")] {
            var env = ProcessInfo.processInfo.environment
            env[CoverageProfiles.environmentVariable] = dir + "/profiles/" + pattern
            let child = try ChildProcess.spawn(dir + "/killed", ["deep"], environment: env)
            #expect(child.readLine(timeout: .seconds(30)) == "reached")
            #expect(child.signal(SIGKILL))
            #expect(child.wait(timeout: .seconds(10)) == .signalled(SIGKILL))
            CoverageProfiles.recordLaunch(
                directory: dir + "/profiles", role: role, pid: child.pid, profile: role == "t/continuous" ? "continuous" : "at-exit")
        }
        // A file cut short or overwritten (not a profile): llvm-profdata refuses it, the rest merge.
        try Data(repeating: 0x5A, count: 200).write(to: URL(fileURLWithPath: dir + "/profiles/garbled.profraw"))
        CoverageProfiles.recordLaunch(directory: dir + "/profiles", role: "t/continuous", pid: 1, profile: "garbled")
        var merger = CoverageMerger(tools: tools, directory: dir + "/profiles")
        try merger.absorb()
        #expect(merger.tallies["t/continuous"]?.processes == 2)
        #expect(merger.tallies["t/continuous"]?.merged == 1)
        #expect(merger.tallies["t/continuous"]?.lost == 1)
        #expect(merger.tallies["t/continuous"]?.lostExamples.first?.hasPrefix("garbled.profraw: ") == true, "\(merger.tallies["t/continuous"]?.lostExamples ?? [])")
        #expect(merger.tallies["t/at-exit"]?.lost == 1)
        let why = merger.tallies["t/at-exit"]?.lostExamples.first ?? ""
        #expect(why.contains("not written") || why.contains("empty"), "\(why)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/profiles/continuous.profraw"), "raw profiles are removed once merged")

        let export = try tools.run(
            tools.cov, ["export", "-format=text", "-instr-profile=" + merger.profile(role: "t/continuous"), dir + "/killed"], timeout: .seconds(60))
        #expect(export.status == 0, "llvm-cov: \(export.stderr)")
        let gaps = CoverageReport.gaps(
            try CoverageExport.decode(export.stdout), filter: AppCodeFilter(excluded: [], ignored: []), base: dir) { _, _ in nil }
        // The `else` (line 6) never ran; the `if`'s body (line 3-6), which only the killed process reached, did.
        #expect(gaps.map { "\($0.kind.rawValue) \($0.file):\($0.line)" } == ["region killed.swift:6"])
    }
}
