import Foundation
import Testing

/// The app-facing modules are what app code links: they may not reach the harness's side
/// (readers, the runner, the stand-in kit), so app code cannot either.
@Suite(.timeLimit(.minutes(3))) struct LayeringTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func frameworksImportNothingHarnessSide() throws {
        let forbidden: Set<String> = ["ScreenTimeOS", "StandInRuntime", "StandInKit", "HarnessKit", "SystemKit", "History", "Supervision"]
        let dir = Self.root.appendingPathComponent("Sources/EmulatedIOS/Frameworks")
        var offenders: [String] = []
        var scanned = 0
        for case let file as URL in FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil)! where file.pathExtension == "swift" {
            scanned += 1
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let i = words.firstIndex(of: "import"), i + 1 < words.count else { continue }
                if forbidden.contains(String(words[i + 1])) { offenders.append("\(file.lastPathComponent): \(line)") }
            }
        }
        #expect(scanned > 20)
        #expect(offenders.isEmpty, "app-facing modules import harness-side ones: \(offenders)")
    }

    /// The App Group stands on three layers, each importing only those below it: the values a suite
    /// holds (PropertyList), the device root's on-disk protocol (DeviceProtocol), the faults the
    /// harness injects (FaultInjection); the iOS-shaped API (AppGroup) re-exports them.
    @Test func theAppGroupsLayersImportOnlyThoseBelow() throws {
        let system: Set<String> = ["Foundation", "Glibc", "Darwin", "Synchronization", "Dispatch", "CSystemShims"]
        let below: [(String, Set<String>)] = [
            ("PropertyList", ["Foundation"]),
            ("DeviceProtocol", system.union(["PropertyList"])),
            ("FaultInjection", system.union(["PropertyList", "DeviceProtocol"])),
        ]
        var offenders: [String] = []
        for (module, allowed) in below {
            let imports = try Self.imports(in: "Sources/Core/\(module)")
            #expect(!imports.isEmpty, "\(module) has no sources")
            offenders += imports.filter { !allowed.contains($0.module) }.map { "\(module)/\($0.file): import \($0.module)" }
        }
        #expect(offenders.isEmpty, "a layer imports one above it: \(offenders)")
        let exports = try String(contentsOf: Self.root.appendingPathComponent("Sources/Core/AppGroup/Exports.swift"), encoding: .utf8)
        for module in ["PropertyList", "DeviceProtocol", "FaultInjection"] {
            #expect(exports.contains("@_exported import \(module)"), "AppGroup does not re-export \(module)")
        }
    }

    /// Every `import` of the Swift files under `dir` (one per line, attributes and access allowed).
    static func imports(in dir: String) throws -> [(file: String, module: String)] {
        var out: [(file: String, module: String)] = []
        let url = root.appendingPathComponent(dir)
        guard let files = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil) else { return [] }
        for case let file as URL in files where file.pathExtension == "swift" {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let i = words.firstIndex(where: { $0 == "import" }), i + 1 < words.count,
                    words[..<i].allSatisfy({ $0.hasPrefix("@") || $0 == "public" || $0 == "package" || $0 == "internal" })
                else { continue }
                out.append((file.lastPathComponent, String(words[i + 1])))
            }
        }
        return out
    }

    /// A pack's model (its machines, keys and wire) is pure, and so is every module it speaks: they
    /// import only Foundation and the pure modules — no App Group files, crash points, processes or
    /// harness — so a machine can be tested in memory and cannot reach the device behind its effects.
    @Test func packModelsAndWhatTheySpeakArePure() throws {
        let pure: Set<String> = ["Foundation", "PropertyList", "ScreenTimeModel", "SystemKit"]
        var dirs = ["Sources/Core/PropertyList", "Sources/EmulatedIOS/ScreenTimeModel", "Sources/Runtime/SystemKit"]
        let systems = Self.root.appendingPathComponent("Sources/Systems")
        for name in try FileManager.default.contentsOfDirectory(atPath: systems.path).sorted()
        where FileManager.default.fileExists(atPath: systems.appendingPathComponent("\(name)/Model").path) {
            dirs.append("Sources/Systems/\(name)/Model")
        }
        #expect(dirs.count >= 9, "\(dirs)")  // the three pure modules and every bundled pack's model
        var offenders: [String] = []
        var imports = 0
        for dir in dirs {
            let found = try Self.imports(in: dir)
            imports += found.count
            offenders += found.filter { !pure.contains($0.module) }.map { "\(dir)/\($0.file): import \($0.module)" }
        }
        #expect(imports > 60)
        #expect(offenders.isEmpty, "pure modules import impure ones: \(offenders)")
    }
}
