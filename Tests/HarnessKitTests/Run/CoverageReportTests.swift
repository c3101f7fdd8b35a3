import Foundation
import Testing

@testable import HarnessKit

/// `harness coverage`'s reading of llvm-cov's export: which files are the app's, what the totals
/// are, and what is listed as never reached (pure: a hand-made export).
@Suite(.timeLimit(.minutes(1))) struct CoverageReportTests {
    static let root = "/pkg"
    static let filter = AppCodeFilter(excluded: ["/h/Sources/Core/AppGroup/", "/h/Sources/EmulatedIOS/Frameworks/"], ignored: ["/Generated/"])

    /// A region: [lineStart, colStart, lineEnd, colEnd, count, fileId, expandedFileId, kind].
    static func r(_ ls: Int, _ cs: Int, _ le: Int, _ ce: Int, _ count: Int, file: Int = 0, kind: Int = 0) -> [Int] { [ls, cs, le, ce, count, file, 0, kind] }

    static func export(_ functions: [(name: String, count: Int, regions: [[Int]], files: [String])], files: [(String, Int, Int)] = []) throws -> CoverageExport {
        let fileObjects: [[String: Any]] = files.map { f in
            [
                "filename": f.0,
                "summary": [
                    "lines": ["count": f.1, "covered": f.2], "functions": ["count": 1, "covered": 1], "regions": ["count": f.1, "covered": f.2],
                ],
            ]
        }
        let fnObjects: [[String: Any]] = functions.map { ["name": $0.name, "count": $0.count, "regions": $0.regions, "filenames": $0.files] }
        let json: [String: Any] = ["type": "llvm.coverage.json.export", "version": "2.0.1", "data": [["files": fileObjects, "functions": fnObjects]]]
        return try CoverageExport.decode(JSONSerialization.data(withJSONObject: json))
    }

    /// The standard filter on this checkout: the four layer folders below the systems are the
    /// harness's, the bundled systems and the seeds' own Swift are the app's, the seeds' stubs not.
    @Test func theStandardFilterKeepsTheSystemsAndTheSeedsSwiftOnly() throws {
        let root = CoverageBuild.harnessRoot
        #expect(FileManager.default.fileExists(atPath: root + "/Package.swift"), "\(root)")
        let f = AppCodeFilter.standard()
        for core in ["Core/AppGroup/SharedDefaults.swift", "EmulatedIOS/Frameworks/DeviceActivity/DeviceActivityCenter.swift",
                     "Runtime/StandInKit/AppRunner.swift", "Harness/HarnessKit/Coverage/CoverageBuild.swift",
                     "Systems/SeedCode/Stubs/SeedPlatform/Stubs.swift"] {
            #expect(!f.isAppCode(root + "/Sources/" + core), "\(core)")
        }
        for app in ["Systems/FocusPledge/Model/Machines/HostApp.swift", "Systems/SeedCode/Seed000/Seed000_MonitorExtension.swift"] {
            #expect(f.isAppCode(root + "/Sources/" + app), "\(app)")
        }
    }

    @Test func theAppsFilesOnlyAndTheirSum() throws {
        let e = try Self.export(
            [], files: [("/pkg/Sources/App/Model.swift", 10, 7), ("/h/Sources/Core/AppGroup/X.swift", 100, 1), ("/pkg/.build/checkouts/a/B.swift", 50, 0),
                        ("/pkg/Sources/App/Generated/G.swift", 5, 0), ("/pkg/Sources/App/Host.swift", 4, 4)])
        let (files, totals) = CoverageReport.files(e, filter: Self.filter, base: Self.root)
        #expect(files.map(\.file) == ["Sources/App/Host.swift", "Sources/App/Model.swift"])
        #expect(totals.lines == CoverageCount(covered: 11, count: 14))
        #expect(totals.lines.text == "11/14 78.6%")
        #expect(CoverageCount.zero.text == "-")
    }

    @Test func aFunctionNeverCalledAndTheOutermostUnreachedRegionOfOneThatRan() throws {
        let file = "/pkg/Sources/App/Model.swift"
        let e = try Self.export([
            // Ran: its `else` (line 5-9) never did, nor a branch nested inside that else (6-7).
            ("ran", 3, [Self.r(1, 1, 20, 2, 3), Self.r(5, 10, 9, 2, 0), Self.r(6, 3, 7, 4, 0), Self.r(12, 5, 14, 6, 3)], [file]),
            // Never called.
            ("never", 0, [Self.r(30, 1, 40, 2, 0), Self.r(32, 1, 33, 2, 0)], [file]),
            // A second instantiation of a generic function: one ran its region, so it is reached.
            ("generic1", 1, [Self.r(50, 1, 60, 2, 1), Self.r(52, 1, 53, 2, 0)], [file]),
            ("generic2", 2, [Self.r(50, 1, 60, 2, 2), Self.r(52, 1, 53, 2, 2)], [file]),
            // Not the app's: never listed.
            ("core", 0, [Self.r(1, 1, 2, 2, 0)], ["/h/Sources/Core/AppGroup/X.swift"]),
            // A skipped region (kind 2) is not code.
            ("skipped", 1, [Self.r(70, 1, 80, 2, 1), Self.r(72, 1, 73, 2, 0, kind: 2)], [file]),
        ])
        let gaps = CoverageReport.gaps(e, filter: Self.filter, base: Self.root) { _, line in "line \(line)" }
        #expect(gaps.map { "\($0.kind.rawValue) \($0.file):\($0.line):\($0.column) \($0.code)" } == [
            "region Sources/App/Model.swift:5:10 line 5",
            "function Sources/App/Model.swift:30:1 line 30",
        ])
    }
}
