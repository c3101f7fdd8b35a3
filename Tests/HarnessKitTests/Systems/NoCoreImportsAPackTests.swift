import Foundation
import Testing

/// The core knows systems only through `SystemPack`: no core source imports a pack's module.
@Suite(.timeLimit(.minutes(3))) struct NoCoreImportsAPackTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Modules defined under Sources/Systems (from Package.swift's target paths).
    static func packModules() throws -> Set<String> {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var modules = Set<String>()
        let pattern = try NSRegularExpression(pattern: #"name: "([A-Za-z0-9_-]+)"[^)]*?path: "Sources/Systems/"#, options: [.dotMatchesLineSeparators])
        for m in pattern.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)) {
            if let r = Range(m.range(at: 1), in: manifest) { modules.insert(String(manifest[r]).replacingOccurrences(of: "-", with: "_")) }
        }
        return modules
    }

    @Test func coreSourcesImportNoPack() throws {
        let packs = try Self.packModules()
        #expect(packs.contains("FocusPledge") && packs.contains("FocusPledgePack") && packs.contains("SystemRegistry"))
        // Every layer folder below the systems' (scripts/module-graph --check holds the folders).
        let sources = Self.root.appendingPathComponent("Sources").path
        let core = try FileManager.default.contentsOfDirectory(atPath: sources).filter { $0 != "Systems" }.sorted()
        #expect(core == ["Core", "EmulatedIOS", "Harness", "Runtime"], "\(core)")
        var offenders: [String] = []
        var scanned = 0
        for folder in core {
            let dir = Self.root.appendingPathComponent("Sources/\(folder)")
            let files = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            for file in files where file.pathExtension == "swift" {
                scanned += 1
                for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                    let words = line.split(separator: " ")
                    guard let i = words.firstIndex(of: "import"), i + 1 < words.count else { continue }
                    if packs.contains(String(words[i + 1])) { offenders.append("\(file.lastPathComponent): \(line)") }
                }
            }
        }
        #expect(scanned > 50)
        #expect(offenders.isEmpty, "core files import packs: \(offenders)")
    }
}
