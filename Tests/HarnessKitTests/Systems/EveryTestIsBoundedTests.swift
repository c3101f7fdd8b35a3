import Foundation
import Testing

/// A hang is a named failure within its limit, not a stuck CI run. Every
/// `@Suite` in Tests/ carries a `.timeLimit` (Swift Testing applies it to each of its tests), and
/// no `@Test` stands outside a suite.
@Suite(.timeLimit(.minutes(1))) struct EveryTestIsBoundedTests {
    static let tests = NoCoreImportsAPackTests.root.appendingPathComponent("Tests")

    @Test func everySuiteHasATimeLimitAndEveryTestIsInASuite() throws {
        var unbounded: [String] = []
        var suites = 0
        let files = FileManager.default.enumerator(at: Self.tests, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            for (i, line) in lines.enumerated() where line.trimmingCharacters(in: .whitespaces).hasPrefix("@Suite") {
                suites += 1
                if !line.contains(".timeLimit(") { unbounded.append("\(file.lastPathComponent):\(i + 1): \(line.trimmingCharacters(in: .whitespaces))") }
            }
            if text.contains("@Test") && !text.contains("@Suite") { unbounded.append("\(file.lastPathComponent): @Test outside any @Suite") }
        }
        #expect(suites > 100, "found the suites (\(suites))")
        #expect(unbounded.isEmpty, "suites without .timeLimit: \(unbounded.joined(separator: "; "))")
    }
}
