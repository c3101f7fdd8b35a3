import Foundation
import Testing

/// The app-facing modules are what app code links: they may not reach the harness's side
/// (readers, the runner, the stand-in kit), so app code cannot either.
@Suite(.timeLimit(.minutes(3))) struct LayeringTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func frameworksImportNothingHarnessSide() throws {
        let forbidden: Set<String> = ["ScreenTimeOS", "ScreenTimeShims", "StandInKit", "HarnessKit", "SystemKit", "History", "Supervision"]
        let dir = Self.root.appendingPathComponent("Sources/Frameworks")
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
}
