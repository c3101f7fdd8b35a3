import Foundation

/// The clock file's JSON (PROTOCOL.md §2), read and written without Foundation's coders on the
/// common path.
///
/// Why not only `JSONDecoder`: under virtual time the harness rewrites the clock at every step
/// (~10,000 in a 24-hour run) and every participant decodes it again. Measured with `perf` on a
/// 24-hour FocusPledge run, `DeviceClock.configuration()` — a fresh `JSONDecoder` decode and a
/// `TimeZone` built for validation — was 15 % of the stand-ins' CPU time. The file is a flat object
/// of six known fields, so a strict little reader takes the forms the harness writes; anything
/// else (escapes, `null`, unknown or repeated keys, numbers JSON's grammar or the field's type does
/// not allow) goes to `JSONDecoder`, so every input decodes exactly as before
/// (`DeviceClockCodecTests` compares the two on the fuzz corpus and on generated files).
extension DeviceClock.Configuration {
    /// Decodes a clock file's bytes (`JSONDecoder`'s answer, faster for the plain forms).
    public static func decode(_ bytes: [UInt8]) throws -> DeviceClock.Configuration {
        if let c = decodePlain(bytes) { return c }
        return try JSONDecoder().decode(DeviceClock.Configuration.self, from: Data(bytes))
    }

    /// The plain form only: a flat JSON object whose keys are exactly the known fields, each once,
    /// with plain numbers and escape-free strings; nil for anything else.
    static func decodePlain(_ bytes: [UInt8]) -> DeviceClock.Configuration? {
        var p = PlainJSONObject(bytes)
        var version: Int?
        var epoch: Double?
        var anchor: UInt64?
        var rate: Double?
        var offset: Double?
        var timeZone: String?
        var mode: String?
        var seen = Set<String>()
        guard p.begin() else { return nil }
        if !p.end() {
            repeat {
                guard let key = p.string(), p.colon(), seen.insert(key).inserted else { return nil }
                switch key {
                case "version":
                    guard let t = p.number(), let v = Int(t) else { return nil }
                    version = v
                case "anchorMonotonicNanos":
                    guard let t = p.number(), t.first != "-", let v = UInt64(t) else { return nil }
                    anchor = v
                case "epochUnixSeconds": epoch = p.double()
                case "rate": rate = p.double()
                case "offsetSeconds": offset = p.double()
                case "timeZone": timeZone = p.string()
                case "mode": mode = p.string()
                default: return nil
                }
                // A field that did not read leaves its variable nil: checked once below.
            } while p.comma()
            guard p.end() else { return nil }
        }
        guard p.atEndOfInput(), let version, let epoch, let anchor, let rate, let offset, let timeZone else { return nil }
        if seen.contains("mode") && mode == nil { return nil }
        var c = DeviceClock.Configuration(
            epochUnixSeconds: epoch, anchorMonotonicNanos: anchor, rate: rate, offsetSeconds: offset, timeZone: timeZone, mode: mode)
        c.version = version
        return c
    }

    /// The file's bytes: one JSON object, keys sorted (what `JSONEncoder` with `.sortedKeys`
    /// writes, produced by hand when every number prints plainly; else by `JSONEncoder`).
    public func encoded() throws -> [UInt8] {
        func plain(_ d: Double) -> String? {
            let s = d.description
            return s.allSatisfy { $0.isNumber || $0 == "." || $0 == "-" } ? s : nil
        }
        func plainString(_ s: String) -> Bool { s.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 < 0x80 } }
        if let e = plain(epochUnixSeconds), let o = plain(offsetSeconds), let r = plain(rate), plainString(timeZone),
            mode.map(plainString) ?? true
        {
            var s = "{\"anchorMonotonicNanos\":\(anchorMonotonicNanos),\"epochUnixSeconds\":\(e),"
            if let mode { s += "\"mode\":\"\(mode)\"," }
            s += "\"offsetSeconds\":\(o),\"rate\":\(r),\"timeZone\":\"\(timeZone)\",\"version\":\(version)}"
            return Array(s.utf8)
        }
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys]
        return Array(try enc.encode(self))
    }
}

/// A cursor over one flat JSON object, strict: it accepts a subset of JSON and says no (nil /
/// false) to everything else, never guessing.
struct PlainJSONObject {
    let b: [UInt8]
    var i = 0

    init(_ bytes: [UInt8]) { b = bytes }

    mutating func skipSpace() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
    }

    mutating func take(_ c: UInt8) -> Bool {
        skipSpace()
        guard i < b.count, b[i] == c else { return false }
        i += 1
        return true
    }

    mutating func begin() -> Bool { take(UInt8(ascii: "{")) }
    mutating func end() -> Bool { take(UInt8(ascii: "}")) }
    mutating func colon() -> Bool { take(UInt8(ascii: ":")) }
    mutating func comma() -> Bool { take(UInt8(ascii: ",")) }

    mutating func atEndOfInput() -> Bool {
        skipSpace()
        return i == b.count
    }

    /// A string without escapes or control characters, valid UTF-8.
    mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = i
        while i < b.count, b[i] != UInt8(ascii: "\"") {
            if b[i] == UInt8(ascii: "\\") || b[i] < 0x20 { return nil }
            i += 1
        }
        guard i < b.count else { return nil }
        let s = String(validating: b[start..<i], as: UTF8.self)
        i += 1
        return s
    }

    /// The text of a number in JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    mutating func number() -> String? {
        skipSpace()
        let start = i
        func digits() -> Int {
            let s = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            return i - s
        }
        if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count else { return nil }
        if b[i] == 0x30 {
            i += 1
        } else {
            guard digits() > 0 else { return nil }
        }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { return nil }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return nil }
        }
        return String(decoding: b[start..<i], as: UTF8.self)
    }

    /// A finite number.
    mutating func double() -> Double? {
        guard let t = number(), let d = Double(t), d.isFinite else { return nil }
        return d
    }
}
