/// Finds one member of a JSON document's top-level object without building the rest: the server
/// reads only `sessions` of the run's plan (`PlannedPledges`), a few KB of a 170 KB file whose
/// `faults` and `userActions` `JSONDecoder` parsed in full at every server start (~1.5 ms; the
/// server restarts ~100 times in a 24-hour run, before its first history line each time).
///
/// The scan checks the whole document against JSON's grammar (RFC 8259: values, string escapes,
/// numbers, literals; UTF-8; at most 64 levels deep), so a document it takes is one `JSONDecoder`
/// parses too. It says no (nil) — and the caller decodes the whole document as before — to
/// anything else, to a top-level key written with escapes, and to the key appearing twice.
enum JSONMemberScan {
    /// The byte range of the value of top-level member `key`, or nil (see above).
    static func valueRange(ofKey key: String, in bytes: [UInt8]) -> Range<Int>? {
        guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
        var s = Scanner(b: bytes)
        let wanted = Array(key.utf8)
        var found: Range<Int>?
        s.space()
        guard s.take(UInt8(ascii: "{")) else { return nil }
        let valid = s.items(closedBy: UInt8(ascii: "}")) { s in
            guard let member = s.member(depth: 1), !member.escapedName else { return false }
            if bytes[member.name].elementsEqual(wanted) {
                guard found == nil else { return false }
                found = member.value
            }
            return true
        }
        guard valid else { return nil }
        s.space()
        guard s.i == bytes.count else { return nil }
        return found
    }

    struct Scanner {
        let b: [UInt8]
        var i = 0
        static let maxDepth = 64

        mutating func space() {
            while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
        }

        mutating func take(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }

        /// A string: its contents' range (without quotes), and whether it has escapes.
        mutating func string() -> (range: Range<Int>, escaped: Bool)? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = i
            var escaped = false
            while i < b.count {
                let c = b[i]
                if c == UInt8(ascii: "\"") {
                    i += 1
                    return (start..<(i - 1), escaped)
                }
                if c < 0x20 { return nil }
                if c == UInt8(ascii: "\\") {
                    escaped = true
                    i += 1
                    guard i < b.count else { return nil }
                    switch b[i] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                        UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        i += 1
                    case UInt8(ascii: "u"):
                        guard i + 4 < b.count, b[(i + 1)...(i + 4)].allSatisfy(Self.isHex) else { return nil }
                        i += 5
                    default: return nil
                    }
                    continue
                }
                i += 1
            }
            return nil
        }

        static func isHex(_ c: UInt8) -> Bool {
            (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c)
        }

        mutating func digits() -> Int {
            let s = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            return i - s
        }

        /// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
        mutating func number() -> Bool {
            _ = take(UInt8(ascii: "-"))
            guard i < b.count else { return false }
            if b[i] == 0x30 { i += 1 } else if digits() == 0 { return false }
            if take(UInt8(ascii: ".")) { guard digits() > 0 else { return false } }
            if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
                i += 1
                if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
                guard digits() > 0 else { return false }
            }
            return true
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let w = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
            guard i + w.count <= b.count, b[i..<(i + w.count)].elementsEqual(w) else { return false }
            i += w.count
            return true
        }

        /// After an opening bracket: the closing one, or items separated by commas and then the
        /// closing one, whitespace around each; `item` reads one item.
        mutating func items(closedBy close: UInt8, _ item: (inout Scanner) -> Bool) -> Bool {
            space()
            if take(close) { return true }
            repeat {
                space()
                guard item(&self) else { return false }
                space()
            } while take(UInt8(ascii: ","))
            return take(close)
        }

        /// `"name" : value`, one member of an object: the name's contents and the value's bytes.
        mutating func member(depth: Int) -> (name: Range<Int>, escapedName: Bool, value: Range<Int>)? {
            guard let name = string() else { return nil }
            space()
            guard take(UInt8(ascii: ":")) else { return nil }
            space()
            let start = i
            guard value(depth: depth) else { return nil }
            return (name.range, name.escaped, start..<i)
        }

        mutating func value(depth: Int) -> Bool {
            guard depth <= Self.maxDepth, i < b.count else { return false }
            switch b[i] {
            case UInt8(ascii: "\""): return string() != nil
            case UInt8(ascii: "{"):
                i += 1
                return items(closedBy: UInt8(ascii: "}")) { s in s.member(depth: depth + 1) != nil }
            case UInt8(ascii: "["):
                i += 1
                return items(closedBy: UInt8(ascii: "]")) { s in s.value(depth: depth + 1) }
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }
    }
}
