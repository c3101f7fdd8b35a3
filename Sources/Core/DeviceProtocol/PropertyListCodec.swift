import Foundation
import PropertyList

/// XML property-list encoding (Apple's `PropertyList-1.0` DTD) for suite files.
///
/// Hand-written because Foundation's `PropertyListSerialization` on Linux costs ~40 µs to encode
/// a five-key suite, most of the 50 µs budget for a `set`. The parser is strict: anything it does
/// not understand is `malformed`, so a corrupt or truncated file is detected, never half-read.
/// Any plist reader (Python's plistlib, Foundation) reads what this writes.
public enum PropertyListCodec {
    public struct Malformed: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
        package init(reason: String) { self.reason = reason }
    }

    // MARK: Encoding

    public static func encode(_ dict: [String: PropertyListValue]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + dict.count * 64)
        out.append(contentsOf: header)
        encode(.dictionary(dict), into: &out, depth: 0)
        out.append(contentsOf: "</plist>\n".utf8)
        return out
    }

    /// Encoded size of a single value (used for the per-value size limit).
    public static func encodedSize(_ value: PropertyListValue) -> Int {
        var out: [UInt8] = []
        encode(value, into: &out, depth: 0)
        return out.count
    }

    static let header = Array(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """.utf8)

    private static func indent(_ out: inout [UInt8], _ depth: Int) {
        for _ in 0..<depth { out.append(UInt8(ascii: "\t")) }
    }

    private static func escaped(_ s: String, into out: inout [UInt8]) {
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
            // A raw carriage return is a line end to every XML parser (read back as `\n` by
            // Python's, XML 1.0 §2.11); a reference keeps it a carriage return everywhere.
            case 0x0D: out.append(contentsOf: "&#13;".utf8)
            case 0..<0x20 where b != 0x09 && b != 0x0A:
                // Not representable in XML 1.0: escape as a character reference our parser accepts.
                out.append(contentsOf: "&#\(b);".utf8)
            default: out.append(b)
            }
        }
    }

    private static func encode(_ v: PropertyListValue, into out: inout [UInt8], depth: Int) {
        indent(&out, depth)
        switch v {
        case .string(let s):
            out.append(contentsOf: "<string>".utf8)
            escaped(s, into: &out)
            out.append(contentsOf: "</string>\n".utf8)
        case .integer(let i):
            out.append(contentsOf: "<integer>\(i)</integer>\n".utf8)
        case .real(let d):
            let text: String
            if d.isNaN { text = "nan" } else if d.isInfinite { text = d > 0 ? "+infinity" : "-infinity" } else { text = "\(d)" }
            out.append(contentsOf: "<real>\(text)</real>\n".utf8)
        case .bool(let b):
            out.append(contentsOf: (b ? "<true/>\n" : "<false/>\n").utf8)
        case .data(let d):
            out.append(contentsOf: "<data>".utf8)
            out.append(contentsOf: d.base64EncodedString().utf8)
            out.append(contentsOf: "</data>\n".utf8)
        case .date(let d):
            out.append(contentsOf: "<date>".utf8)
            out.append(contentsOf: iso8601(d).utf8)
            out.append(contentsOf: "</date>\n".utf8)
        case .array(let a):
            if a.isEmpty { out.append(contentsOf: "<array/>\n".utf8); return }
            out.append(contentsOf: "<array>\n".utf8)
            for e in a { encode(e, into: &out, depth: depth + 1) }
            indent(&out, depth)
            out.append(contentsOf: "</array>\n".utf8)
        case .dictionary(let dict):
            if dict.isEmpty { out.append(contentsOf: "<dict/>\n".utf8); return }
            out.append(contentsOf: "<dict>\n".utf8)
            for k in dict.keys.sorted() {
                indent(&out, depth + 1)
                out.append(contentsOf: "<key>".utf8)
                escaped(k, into: &out)
                out.append(contentsOf: "</key>\n".utf8)
                encode(dict[k]!, into: &out, depth: depth + 1)
            }
            indent(&out, depth)
            out.append(contentsOf: "</dict>\n".utf8)
        }
    }

    static func iso8601(_ d: Date) -> String { ISO8601Date.format(d) }

    // MARK: Decoding

    /// Parses a suite file whose root is a `<dict>`; any problem, one key's value included, is `Malformed`.
    public static func decodeDictionary(_ bytes: [UInt8]) throws -> [String: PropertyListValue] {
        let (values, badKeys) = try decodeDictionaryKeepingGoodKeys(bytes)
        if let first = badKeys.first { throw Malformed(reason: first.reason) }
        return values
    }

    /// Parses a suite file whose root is a `<dict>`, leaving out each top-level key whose value is
    /// well-formed XML but no value of its element's type — an `<integer>` outside signed 64 bits,
    /// a `<date>` that is not one (PROTOCOL.md §3's one form, 0001…9999), a `<real>` that is no
    /// number, `<data>` that is not base64, at any depth inside the key's value (PROTOCOL.md §3:
    /// such a key is quarantined alone). Anything else is `Malformed`: the whole file.
    public static func decodeDictionaryKeepingGoodKeys(_ bytes: [UInt8]) throws -> (values: [String: PropertyListValue], badKeys: [(key: String, reason: String)]) {
        var p = Parser(bytes: bytes)
        p.keepGoodKeys = true
        let root = try p.parseDocument()
        guard case .dictionary(let d) = root else { throw Malformed(reason: "root is not a <dict>") }
        return (d, p.badKeys)
    }

    /// How deeply a value may nest (containers inside containers) and still be read back: the
    /// parser refuses a suite nested `Parser.maxDepth` deep, and a suite's root `<dict>` is one level.
    public static let maxValueNesting = Parser.maxDepth - 2

    /// Whether XML 1.0 can hold `scalar` (its `Char` production): tab, newline, carriage return,
    /// and U+0020 … U+10FFFF without the surrogates, U+FFFE and U+FFFF. The encoder writes any
    /// other as `&#N;`, which this parser reads but XML 1.0 parsers (Python's) refuse, so writers
    /// of suites refuse them (PROTOCOL.md §3).
    public static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: return true
        case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    /// The first character of a string or dictionary key in `v` that XML 1.0 cannot hold, or nil.
    public static func firstNonXMLCharacter(_ v: PropertyListValue) -> Unicode.Scalar? {
        func inString(_ s: String) -> Unicode.Scalar? { s.unicodeScalars.first { !isXMLCharacter($0) } }
        switch v {
        case .string(let s): return inString(s)
        case .array(let a): return a.lazy.compactMap(firstNonXMLCharacter).first
        case .dictionary(let d):
            for (k, e) in d { if let c = inString(k) ?? firstNonXMLCharacter(e) { return c } }
            return nil
        default: return nil
        }
    }

    /// Whether `v` holds a date outside `ISO8601Date.range` (written, it would make the suite corrupt).
    public static func holdsUnwritableDate(_ v: PropertyListValue) -> Bool {
        switch v {
        case .date(let d): return !ISO8601Date.isWritable(d)
        case .array(let a): return a.contains(where: holdsUnwritableDate)
        case .dictionary(let d): return d.values.contains(where: holdsUnwritableDate)
        default: return false
        }
    }

    /// The nesting of `v`: 0 for a scalar, 1 + the deepest element for an array or dictionary.
    public static func nesting(_ v: PropertyListValue) -> Int {
        switch v {
        case .array(let a): return 1 + (a.map(nesting).max() ?? 0)
        case .dictionary(let d): return 1 + (d.values.map(nesting).max() ?? 0)
        default: return 0
        }
    }

    struct Parser {
        let bytes: [UInt8]
        var i = 0
        static let maxDepth = 64

        /// Leaf values that do not parse leave their top-level key out (`badKeys`) instead of
        /// failing the document.
        var keepGoodKeys = false
        var badKeys: [(key: String, reason: String)] = []
        /// The first bad leaf inside the top-level value being parsed.
        private var badLeaf: String?

        init(bytes: [UInt8]) { self.bytes = bytes }

        func fail(_ r: String) -> Malformed { Malformed(reason: "\(r) at byte \(i)") }

        /// A leaf element read whole whose text is no value of its type: noted for its top-level
        /// key (a placeholder value is returned), or thrown.
        mutating func badValue(_ r: String) throws -> PropertyListValue {
            guard keepGoodKeys else { throw fail(r) }
            if badLeaf == nil { badLeaf = fail(r).reason }
            return .string("")
        }

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
        }

        func peek(_ s: String) -> Bool {
            let u = Array(s.utf8)
            guard i + u.count <= bytes.count else { return false }
            for k in 0..<u.count where bytes[i + k] != u[k] { return false }
            return true
        }

        mutating func expect(_ s: String) throws {
            guard peek(s) else { throw fail("expected \(s)") }
            i += s.utf8.count
        }

        /// Skips `<?...?>`, `<!...>` and comments before the root element.
        mutating func skipProlog() throws {
            while true {
                skipSpace()
                if peek("<?") || peek("<!") {
                    guard let end = bytes[i...].firstIndex(of: UInt8(ascii: ">")) else { throw fail("unterminated prolog") }
                    i = end + 1
                } else { return }
            }
        }

        mutating func parseDocument() throws -> PropertyListValue {
            try skipProlog()
            var wrapped = false
            if peek("<plist") {
                guard let end = bytes[i...].firstIndex(of: UInt8(ascii: ">")) else { throw fail("unterminated <plist>") }
                i = end + 1
                wrapped = true
            }
            skipSpace()
            let v = try parseValue(depth: 0)
            skipSpace()
            if wrapped { try expect("</plist>") }
            skipSpace()
            guard i == bytes.count else { throw fail("trailing bytes after the root element") }
            return v
        }

        /// Reads a tag name at `<`; returns (name, selfClosing).
        mutating func openTag() throws -> (String, Bool) {
            try expect("<")
            let start = i
            while i < bytes.count, bytes[i] != UInt8(ascii: ">"), bytes[i] != UInt8(ascii: "/") { i += 1 }
            let name = String(decoding: bytes[start..<i], as: UTF8.self)
            if peek("/>") { i += 2; return (name, true) }
            try expect(">")
            return (name, false)
        }

        mutating func text(until closing: String) throws -> String {
            let close = Array("</\(closing)>".utf8)
            let start = i
            while true {
                guard i + close.count <= bytes.count else { throw fail("unterminated <\(closing)>") }
                if bytes[i] == close[0] && Array(bytes[i..<(i + close.count)]) == close { break }
                i += 1
            }
            let raw = bytes[start..<i]
            i += close.count
            return try unescape(raw)
        }

        func unescape(_ raw: ArraySlice<UInt8>) throws -> String {
            // XML end-of-line handling (§2.11), as every other reader does it: a raw `\r\n` or
            // `\r` is `\n` (a written carriage return is `&#13;`, below).
            if raw.contains(0x0D) {
                var lines: [UInt8] = []
                lines.reserveCapacity(raw.count)
                var k = raw.startIndex
                while k < raw.endIndex {
                    if raw[k] == 0x0D {
                        lines.append(0x0A)
                        if k + 1 < raw.endIndex && raw[k + 1] == 0x0A { k += 1 }
                    } else {
                        lines.append(raw[k])
                    }
                    k += 1
                }
                return try unescape(lines[...])
            }
            guard raw.contains(UInt8(ascii: "&")) else {
                guard let s = String(validating: raw, as: UTF8.self) else { throw fail("invalid UTF-8") }
                return s
            }
            var out: [UInt8] = []
            out.reserveCapacity(raw.count)
            var k = raw.startIndex
            while k < raw.endIndex {
                let b = raw[k]
                if b != UInt8(ascii: "&") { out.append(b); k += 1; continue }
                guard let semi = raw[k...].firstIndex(of: UInt8(ascii: ";")), semi - k <= 10 else { throw fail("bad entity") }
                let ent = String(decoding: raw[(k + 1)..<semi], as: UTF8.self)
                switch ent {
                case "amp": out.append(UInt8(ascii: "&"))
                case "lt": out.append(UInt8(ascii: "<"))
                case "gt": out.append(UInt8(ascii: ">"))
                case "quot": out.append(UInt8(ascii: "\""))
                case "apos": out.append(UInt8(ascii: "'"))
                default:
                    let scalar: UInt32?
                    if ent.hasPrefix("#x") { scalar = UInt32(ent.dropFirst(2), radix: 16) } else if ent.hasPrefix("#") { scalar = UInt32(ent.dropFirst()) } else { scalar = nil }
                    guard let sv = scalar, let us = Unicode.Scalar(sv) else { throw fail("unknown entity &\(ent);") }
                    out.append(contentsOf: String(Character(us)).utf8)
                }
                k = semi + 1
            }
            guard let s = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8") }
            return s
        }

        mutating func parseValue(depth: Int) throws -> PropertyListValue {
            guard depth < Self.maxDepth else { throw fail("nesting deeper than \(Self.maxDepth)") }
            skipSpace()
            let (tag, selfClosing) = try openTag()
            switch tag {
            case "true": if !selfClosing { try expect("</true>") }; return .bool(true)
            case "false": if !selfClosing { try expect("</false>") }; return .bool(false)
            case "string":
                return .string(selfClosing ? "" : try text(until: "string"))
            case "integer":
                let t = try text(until: "integer").trimmingCharacters(in: .whitespaces)
                guard let v = Int64(t) else { return try badValue("bad integer \(String(reflecting: String(t.prefix(40))))") }
                return .integer(v)
            case "real":
                let t = try text(until: "real").trimmingCharacters(in: .whitespaces)
                switch t.lowercased() {
                case "nan": return .real(.nan)
                case "+infinity", "infinity", "inf": return .real(.infinity)
                case "-infinity", "-inf": return .real(-.infinity)
                default:
                    guard let v = Double(t) else { return try badValue("bad real \(String(reflecting: String(t.prefix(40))))") }
                    return .real(v)
                }
            case "data":
                if selfClosing { return .data(Data()) }
                let t = try text(until: "data").filter { !$0.isWhitespace }
                guard let d = Data(base64Encoded: t) else { return try badValue("bad base64 in <data>") }
                return .data(d)
            case "date":
                let t = try text(until: "date").trimmingCharacters(in: .whitespaces)
                guard case .success(let d) = ISO8601Date.parse(t) else { return try badValue("bad date \(String(reflecting: String(t.prefix(40))))") }
                return .date(d)
            case "array":
                var out: [PropertyListValue] = []
                if selfClosing { return .array(out) }
                while true {
                    skipSpace()
                    if peek("</array>") { i += 8; return .array(out) }
                    guard i < bytes.count else { throw fail("unterminated <array>") }
                    out.append(try parseValue(depth: depth + 1))
                }
            case "dict":
                var out: [String: PropertyListValue] = [:]
                if selfClosing { return .dictionary(out) }
                while true {
                    skipSpace()
                    if peek("</dict>") { i += 7; return .dictionary(out) }
                    guard i < bytes.count else { throw fail("unterminated <dict>") }
                    let (kt, ksc) = try openTag()
                    guard kt == "key" else { throw fail("expected <key>, found <\(kt)>") }
                    let key = ksc ? "" : try text(until: "key")
                    let value = try parseValue(depth: depth + 1)
                    if depth == 0, let why = badLeaf {
                        badKeys.append((key, why))
                        badLeaf = nil
                    } else {
                        out[key] = value
                    }
                }
            default:
                throw fail("unknown element <\(tag)>")
            }
        }
    }
}
