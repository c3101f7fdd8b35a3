import AppGroup
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// How `harness coverage` builds the stand-ins: the package's own executables, debug, with LLVM
/// source-based coverage, in a build directory of their own (`.build/coverage`) so the normal
/// build is never rebuilt, and which source files are the *app's* code.
package enum CoverageBuild {
    /// `-profile-generate -profile-coverage-mapping`: the counters and the map from counters to
    /// source regions. `-runtime-counter-relocation`: the counters are reached through a bias the
    /// profile runtime sets, which is what lets it map them onto the profile file itself — LLVM's
    /// continuous mode (`%c` in `LLVM_PROFILE_FILE`), without which a SIGKILLed process (the point
    /// of a chaos run) writes no profile at all (on Linux the runtime refuses `%c` without it).
    package static let swiftFlags = ["-profile-generate", "-profile-coverage-mapping", "-Xllvm", "-runtime-counter-relocation"]

    /// The build's directory inside the package.
    package static let scratchDirectory = ".build/coverage"

    /// `swift build` arguments for one product.
    package static func buildArguments(packagePath: String, product: String) -> [String] {
        ["build", "--package-path", packagePath, "--scratch-path", packagePath + "/" + scratchDirectory, "-c", "debug", "--product", product]
            + swiftFlags.flatMap { ["-Xswiftc", $0] }
    }

    /// Where the built executables are.
    package static func binDirectory(packagePath: String) -> String { packagePath + "/" + scratchDirectory + "/debug" }

    /// The harness's own source tree (this file is `<root>/Sources/Harness/HarnessKit/Coverage/…`):
    /// its core's files are not the app's, only its bundled systems' and the seeds' own Swift are.
    package static let harnessRoot: String = {
        var p = #filePath
        for _ in 0..<5 { p = PathText.directory(of: p) }
        return p
    }()
}

/// Which of the files compiled into the stand-ins are the app's code: the pack's or the team's
/// model and stand-ins, the seeds' own Swift — not the harness's core (the emulated frameworks,
/// the stand-in runtime, the App Group layer), not the seeds' stubs, not dependencies.
package struct AppCodeFilter: Sendable {
    /// Directories whose files are not the app's (absolute, ending in `/`).
    package var excluded: [String]
    /// The user's own `--ignore` patterns (substrings of the path).
    package var ignored: [String]

    /// The harness's core: every layer folder under `<root>/Sources` but the bundled systems
    /// (`Systems`, the seeds' own code among them — whose stubs of Apple's and others' modules are
    /// excluded too).
    package static func standard(harnessRoot: String = CoverageBuild.harnessRoot, ignored: [String] = []) -> AppCodeFilter {
        let sources = harnessRoot + "/Sources"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: sources)) ?? coreLayers
        var dirs = Set(names).subtracting(["Systems"]).map { "\(sources)/\($0)/" }
        dirs.append("\(sources)/Systems/SeedCode/Stubs/")
        return AppCodeFilter(excluded: dirs.sorted(), ignored: ignored)
    }

    /// The core's layer folders, for a harness whose source tree is not on this machine.
    static let coreLayers = ["Core", "EmulatedIOS", "Harness", "Runtime"]

    package func isAppCode(_ path: String) -> Bool {
        if path.contains("/.build/") { return false }  // dependencies' checkouts, generated files
        if excluded.contains(where: { path.hasPrefix($0) }) { return false }
        return !ignored.contains { path.contains($0) }
    }

    /// The same rule for llvm-cov's `-ignore-filename-regex` (so its export and HTML leave the
    /// rest out before this filter sees them).
    package var regex: String {
        let alternatives = ["/\\.build/"] + excluded.map { "^" + Self.escape($0) } + ignored.map(Self.escape)
        return alternatives.joined(separator: "|")
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            if "\\^$.|?*+()[]{}".contains(c) { out.append("\\") }
            out.append(c)
        }
        return out
    }
}
