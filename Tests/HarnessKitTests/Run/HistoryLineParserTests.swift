import Foundation
@testable import History
import Testing

/// `HistoryEvent.parse(jsonl:)` reads lines in `jsonLine()`'s form byte by byte and leaves every
/// other line to `JSONDecoder`: it must answer exactly as `JSONDecoder` alone did.
@Suite(.timeLimit(.minutes(1))) struct HistoryLineParserTests {
    static func reference(_ data: Data) -> (events: [HistoryEvent], badLines: [String]) {
        var events: [HistoryEvent] = []
        var bad: [String] = []
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            if let e = try? JSONDecoder().decode(HistoryEvent.self, from: Data(line)) { events.append(e) } else {
                bad.append(String(decoding: line.prefix(200), as: UTF8.self))
            }
        }
        return (events, bad)
    }

    @Test func linesAreReadAsJSONDecoderReadsThem() {
        var g = SystemRandomNumberGenerator()
        let texts = ["", "plain", "a \"quote\"", "back\\slash", "new\nline", "tab\tcr\r", "\u{1}\u{1f}", "é ü 😀", "\u{301}x", "/slash/",
            "mono", "t", "field_pid", "{\"nested\":1}", "x".padding(toLength: 300, withPad: "y", startingAt: 0)]
        let numbers = ["0", "-0", "5", "-5", "007", "+5", "5.0", "5.", ".5", "1e3", "1E-3", "-2.5e+2", "1e400", "9223372036854775807",
            "9223372036854775808", "2147483647", "2147483648", "-2147483648", "0x10", "NaN", "\"5\"", "true", "null", "[]", "{}"]
        var lines: [String] = []
        for _ in 0..<2000 {
            var fields: [String: String] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &g) { fields[texts.randomElement(using: &g)!] = texts.randomElement(using: &g)! }
            let e = HistoryEvent(
                mono: Int64.random(in: Int64.min...Int64.max, using: &g),
                t: [Double.random(in: 0...2e9, using: &g), Double(Int.random(in: 0...2_000_000_000, using: &g)) / 1000, 1e-7, 123.0].randomElement(using: &g)!,
                process: texts.randomElement(using: &g)!, pid: Int32.random(in: Int32.min...Int32.max, using: &g),
                event: texts.randomElement(using: &g)!, fields: fields)
            let line = e.jsonLine()
            lines.append(line)
            // Mutations: a number in another form, whitespace, a key twice, a byte dropped or changed, escapes.
            var bytes = Array(line.utf8)
            switch Int.random(in: 0..<7, using: &g) {
            case 0: lines.append(line.replacingOccurrences(of: "\"pid\":\(e.pid)", with: "\"pid\":\(numbers.randomElement(using: &g)!)"))
            case 1: lines.append(line.replacingOccurrences(of: "\"mono\":\(e.mono)", with: "\"mono\":\(numbers.randomElement(using: &g)!)"))
            case 2: lines.append(line.replacingOccurrences(of: "\"t\":", with: "\"t\":\(numbers.randomElement(using: &g)!),\"x\":"))
            case 3:
                let extra = ["\"k\": \"v\",", "\"event\":\"again\",", "\"k\":1,", "\"k\":\"\\u00e9\\/\\b\\f\",", "\"k\":\"\\ud83d\\ude00\","].randomElement(using: &g)!
                lines.append("{" + extra + line.dropFirst())
            case 4:
                bytes.remove(at: Int.random(in: 0..<bytes.count, using: &g))
                lines.append(String(decoding: bytes, as: UTF8.self))
            case 5:
                bytes[Int.random(in: 0..<bytes.count, using: &g)] = UInt8.random(in: 0...255, using: &g)
                lines.append(String(decoding: bytes, as: UTF8.self))
            default: lines.append(line + [" ", "x", "}", ""].randomElement(using: &g)!)
            }
        }
        lines += ["{}", "{\"mono\":1}", "{\"mono\":1,\"t\":2,\"process\":\"p\",\"pid\":3,\"event\":\"e\",}", "{\"mono\":1,\"t\":2,\"process\":\"p\",\"pid\":3,\"event\":\"e\",\"u\":\"\\u0041\\u00e9\"}"]
        let data = Data(lines.joined(separator: "\n").utf8)
        let fast = HistoryEvent.parse(jsonl: data)
        let slow = Self.reference(data)
        #expect(fast.events == slow.events)
        #expect(fast.badLines == slow.badLines)
        var byFastPath = 0
        for line in lines {
            let bytes = Array(line.utf8)
            guard let e = bytes.withUnsafeBufferPointer({ HistoryEvent.FlatLine.parse($0) }) else { continue }
            byFastPath += 1
            #expect(e == (try? JSONDecoder().decode(HistoryEvent.self, from: Data(bytes))), "\(line)")
        }
        #expect(byFastPath >= 2000 && byFastPath < lines.count, "both paths taken (\(byFastPath) of \(lines.count) by bytes)")
        #expect(slow.badLines.count > 100, "malformed lines tried")
    }
}
