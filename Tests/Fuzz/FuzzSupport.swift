import Foundation
import PropertyBased
import Synchronization
import Testing

/// What every fuzz property shares: the corpus kept in the repo (Tests/Fuzz/Corpus/<kind>/), a
/// deterministic mutator driven by shrinkable integers, and a bound on iterations.
///
/// CI runs `iterations` (default 200) per property, a few seconds in all; a longer hunt:
/// `STH_FUZZ_ITERATIONS=20000 swift test --skip-build --filter FuzzTests`. A failure prints the
/// shrunk input and a `.fixedSeed(…)` that reproduces it.
enum Fuzz {
    static let iterations = ProcessInfo.processInfo.environment["STH_FUZZ_ITERATIONS"].flatMap(Int.init).map { max(1, min($0, 10_000_000)) } ?? 200

    static let corpusDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus")

    /// The corpus files of `kind`, sorted by name (at least one, or the test fails).
    static func corpus(_ kind: String) -> [[UInt8]] {
        let dir = corpusDirectory.appendingPathComponent(kind)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
        let files = names.compactMap { try? Data(contentsOf: dir.appendingPathComponent($0)) }.map { [UInt8]($0) }
        precondition(!files.isEmpty, "no corpus in \(dir.path)")
        return files
    }

    /// Tokens that break parsers more often than random bytes do.
    static let tokens: [[UInt8]] = [
        "<", ">", "&", "&#", "&#x", ";", "</dict>", "<dict>", "<array>", "</array>", "<key>", "<integer>", "<real>", "<data>",
        "<date>", "<string/>", "\"", "{", "}", "[", "]", ":", ",", "null", "true", "-", "0", "00", "1e309", "-1e309", "nan",
        "9223372036854775808", "18446744073709551616", "99999999999999999999999", "\n", "\t", " ", "\u{0}", "\u{FEFF}", "é",
        "%", "\\", "\\u0000", "v1 ", "---", "? ", "*a", "&a", "!!", "- ", "  ", "#",
    ].map { Array($0.utf8) }

    /// Applies `ops` to `input`: each op is one edit, chosen and placed by its bits — so shrinking
    /// the op list (fewer, smaller ops) shrinks the mutation.
    static func mutate(_ input: [UInt8], _ ops: [UInt32]) -> [UInt8] {
        var b = input
        for op in ops {
            let at = b.isEmpty ? 0 : Int(op >> 8) % (b.count + 1)
            let byte = UInt8(truncatingIfNeeded: op >> 24)
            switch op % 8 {
            case 0: if at < b.count { b[at] ^= 1 << (byte % 8) }
            case 1: if at < b.count { b[at] = byte }
            case 2: b.insert(byte, at: at)
            case 3: if at < b.count { b.remove(at: at) }
            case 4: b.removeSubrange(at...)  // truncate
            case 5:
                let len = min(Int(byte) + 1, b.count - at)
                if len > 0 { b.insert(contentsOf: b[at..<(at + len)], at: at) }
            case 6: b.insert(contentsOf: tokens[Int(byte) % tokens.count], at: at)
            default:
                let len = min(Int(byte) % 32 + 1, b.count - at)
                if len > 0 { b.removeSubrange(at..<(at + len)) }
            }
            if b.count > 1 << 20 { b.removeSubrange((1 << 20)...) }
        }
        return b
    }

    /// A corpus file index and an edit list, both shrinkable.
    static func mutations(of kind: String, maxOps: Int = 8) -> Generator<[UInt8], some SendableSequenceType> {
        let files = corpus(kind)
        return zip(Gen.int(in: 0...(files.count - 1)), Gen<UInt32>.value(in: 0...UInt32.max).array(of: 0...maxOps))
            .map { index, ops in mutate(files[index], ops) }
    }

    /// Arbitrary bytes (shrinkable).
    static func bytes(upTo n: Int) -> Generator<[UInt8], some SendableSequenceType> {
        Gen<UInt8>.value(in: 0...255).array(of: 0...n)
    }

    /// Counts iterations per property and prints them once the property is done.
    final class Tally: Sendable {
        let name: String
        private let count = Atomic<Int>(0)
        init(_ name: String) { self.name = name }
        func tick() { count.add(1, ordering: .relaxed) }
        func report() {
            let n = count.load(ordering: .relaxed)
            print("fuzz \(name): \(n) iterations, 0 crashes")
        }
    }
}
