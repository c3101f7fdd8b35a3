import Foundation

/// One line of a trace (`<run-dir>/trace/<process>.jsonl`) or of the merged `history.jsonl`.
///
/// Flat JSON: the five fixed fields plus event-specific fields, all as strings:
///
///     {"mono":81234567890,"t":1771300123.25,"process":"host-app","pid":4242,"event":"failure_seen","sid":"s-3","reason":"app_opened"}
///
/// `mono` is CLOCK_MONOTONIC in nanoseconds (system-wide: lines from different processes are
/// ordered and subtracted by it); `t` is device time (unix seconds, virtual when the clock runs
/// faster). Checkers read only these lines.
public struct HistoryEvent: Codable, Equatable, Sendable {
    public var mono: Int64
    public var t: Double
    public var process: String
    public var pid: Int32
    public var event: String
    public var fields: [String: String]

    /// Field names may not repeat a fixed key (`mono`, `t`, `process`, `pid`, `event`): such a
    /// field would be lost in the line format, so it is kept under a `field_` prefix instead.
    public init(mono: Int64, t: Double, process: String, pid: Int32, event: String, fields: [String: String] = [:]) {
        var fields = fields
        for k in Self.fixedKeys where fields[k] != nil { fields["field_" + k] = fields.removeValue(forKey: k) }
        self.mono = mono
        self.t = t
        self.process = process
        self.pid = pid
        self.event = event
        self.fields = fields
    }

    public subscript(_ key: String) -> String? { fields[key] }

    static let fixedKeys: Set<String> = ["mono", "t", "process", "pid", "event"]

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        mono = try c.decode(Int64.self, forKey: Key("mono"))
        t = try c.decode(Double.self, forKey: Key("t"))
        process = try c.decode(String.self, forKey: Key("process"))
        pid = try c.decode(Int32.self, forKey: Key("pid"))
        event = try c.decode(String.self, forKey: Key("event"))
        var f: [String: String] = [:]
        for k in c.allKeys where !Self.fixedKeys.contains(k.stringValue) {
            if let s = try? c.decode(String.self, forKey: k) {
                f[k.stringValue] = s
            } else if let i = try? c.decode(Int64.self, forKey: k) {
                f[k.stringValue] = String(i)
            } else if let d = try? c.decode(Double.self, forKey: k) {
                f[k.stringValue] = String(d)
            } else if let b = try? c.decode(Bool.self, forKey: k) {
                f[k.stringValue] = String(b)
            }  // nested values and nulls are dropped: traces are flat
        }
        fields = f
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(mono, forKey: Key("mono"))
        try c.encode(t, forKey: Key("t"))
        try c.encode(process, forKey: Key("process"))
        try c.encode(pid, forKey: Key("pid"))
        try c.encode(event, forKey: Key("event"))
        for (k, v) in fields where !Self.fixedKeys.contains(k) { try c.encode(v, forKey: Key(k)) }
    }

    /// One JSON line, keys sorted (stable, diffable histories).
    public func jsonLine() -> String {
        var parts = ["\"mono\":\(mono)", "\"t\":\(t)", "\"process\":\(Self.quote(process))", "\"pid\":\(pid)", "\"event\":\(Self.quote(event))"]
        for k in fields.keys.sorted() where !Self.fixedKeys.contains(k) { parts.append("\(Self.quote(k)):\(Self.quote(fields[k]!))") }
        return "{" + parts.joined(separator: ",") + "}"
    }

    public static func quote(_ s: String) -> String {
        // Most values need no escape: one pass over the bytes, then one concatenation.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) { return "\"" + s + "\"" }
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let h = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }

    /// Parses a JSONL file; unparseable lines (a process killed mid-append) are returned apart.
    public static func parse(jsonl data: Data) -> (events: [HistoryEvent], badLines: [String]) {
        var events: [HistoryEvent] = []
        var bad: [String] = []
        let dec = JSONDecoder()
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            if let e = line.withUnsafeBytes({ FlatLine.parse($0.bindMemory(to: UInt8.self)) }) ?? (try? dec.decode(HistoryEvent.self, from: Data(line))) {
                events.append(e)
            } else {
                bad.append(String(decoding: line.prefix(200), as: UTF8.self))
            }
        }
        return (events, bad)
    }

    /// One line in exactly the form `jsonLine()` writes — no whitespace, string values but for the
    /// three numbers, no key twice — read byte by byte; nil for anything else, which `JSONDecoder`
    /// then reads as before (and answers the same for every line this reads: HistoryEventTests).
    /// Merging a 24 h run's traces through `JSONDecoder` alone took 1.3 % of the run.
    enum FlatLine {
        static func parse(_ b: UnsafeBufferPointer<UInt8>) -> HistoryEvent? {
            var i = 0
            let n = b.count
            guard n >= 2, b[0] == UInt8(ascii: "{"), b[n - 1] == UInt8(ascii: "}") else { return nil }
            // Bytes beyond ASCII: the whole line must be UTF-8, as JSONDecoder requires.
            if b.contains(where: { $0 >= 0x80 }), String(validating: b, as: UTF8.self) == nil { return nil }
            i = 1
            var mono: Int64?, t: Double?, pid: Int32?, process: String?, event: String?
            var fields: [String: String] = [:]
            if b[i] == UInt8(ascii: "}") { return nil }
            while true {
                guard let key = string(b, &i), i < n, b[i] == UInt8(ascii: ":") else { return nil }
                i += 1
                guard i < n else { return nil }
                switch key {
                case "mono", "t", "pid":
                    guard let token = number(b, &i) else { return nil }
                    if key == "mono" {
                        guard mono == nil, token.integer, let v = Int64(token.text) else { return nil }
                        mono = v
                    } else if key == "pid" {
                        guard pid == nil, token.integer, let v = Int32(token.text) else { return nil }
                        pid = v
                    } else {
                        guard t == nil, let v = Double(token.text), v.isFinite else { return nil }
                        t = v
                    }
                default:
                    guard let value = string(b, &i) else { return nil }
                    if key == "process" {
                        guard process == nil else { return nil }
                        process = value
                    } else if key == "event" {
                        guard event == nil else { return nil }
                        event = value
                    } else {
                        guard fields.updateValue(value, forKey: key) == nil else { return nil }
                    }
                }
                guard i < n else { return nil }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                guard b[i] == UInt8(ascii: "}"), i == n - 1 else { return nil }
                break
            }
            guard let mono, let t, let pid, let process, let event else { return nil }
            var e = HistoryEvent(mono: mono, t: t, process: process, pid: pid, event: event)
            e.fields = fields
            return e
        }

        /// A JSON string at `i` (the escapes `quote` writes, and \/ \b \f); nil for anything else.
        static func string(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> String? {
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
            i += 1
            let start = i
            var plain = true
            while i < b.count, b[i] != UInt8(ascii: "\"") {
                if b[i] < 0x20 { return nil }
                if b[i] == UInt8(ascii: "\\") { plain = false; i += 2 } else { i += 1 }
            }
            guard i < b.count else { return nil }
            let end = i
            i += 1
            if plain { return String(decoding: UnsafeBufferPointer(rebasing: b[start..<end]), as: UTF8.self) }
            var out: [UInt8] = []
            out.reserveCapacity(end - start)
            var j = start
            while j < end {
                let c = b[j]
                guard c == UInt8(ascii: "\\") else { out.append(c); j += 1; continue }
                guard j + 1 < end else { return nil }
                switch b[j + 1] {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard j + 5 < end else { return nil }
                    var v: UInt32 = 0
                    for k in 2...5 {
                        let h = b[j + k]
                        let d: UInt8
                        switch h {
                        case 0x30...0x39: d = h - 0x30
                        case 0x41...0x46: d = h - 0x41 + 10
                        case 0x61...0x66: d = h - 0x61 + 10
                        default: return nil
                        }
                        v = v << 4 | UInt32(d)
                    }
                    // Surrogates (pairs and lone halves) are left to JSONDecoder.
                    guard !(0xD800...0xDFFF).contains(v), let scalar = Unicode.Scalar(v) else { return nil }
                    UTF8.encode(scalar) { out.append($0) }
                    j += 6
                    continue
                default: return nil
                }
                j += 2
            }
            return String(decoding: out, as: UTF8.self)
        }

        /// A JSON number at `i` (RFC 8259's grammar) and whether it is an integer (no fraction, no exponent).
        static func number(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> (text: String, integer: Bool)? {
            let start = i
            func digit(_ k: Int) -> Bool { k < b.count && b[k] >= 0x30 && b[k] <= 0x39 }
            if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
            guard digit(i) else { return nil }
            if b[i] == 0x30 { i += 1 } else { while digit(i) { i += 1 } }
            var integer = true
            if i < b.count, b[i] == UInt8(ascii: ".") {
                integer = false
                i += 1
                guard digit(i) else { return nil }
                while digit(i) { i += 1 }
            }
            if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
                integer = false
                i += 1
                if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
                guard digit(i) else { return nil }
                while digit(i) { i += 1 }
            }
            return (String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self), integer)
        }
    }
}
