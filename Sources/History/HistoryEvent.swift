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
            if let e = try? dec.decode(HistoryEvent.self, from: Data(line)) {
                events.append(e)
            } else {
                bad.append(String(decoding: line.prefix(200), as: UTF8.self))
            }
        }
        return (events, bad)
    }
}
