/// Darwin notification names are file names under `notify/` (PROTOCOL.md §4.1), so they are
/// validated before any filesystem call: 1...200 UTF-8 bytes, no `/`, no NUL or other control
/// characters, and no leading `.` (reserved for temp and lock files; also rules out `.`/`..`).
public enum NotifyName {
    public static let maxBytes = 200

    public static func validate(_ name: String) throws {
        func bad(_ r: String) -> AppGroupError { .invalidNotificationName(name, reason: r) }
        if name.isEmpty { throw bad("empty") }
        if name.utf8.count > maxBytes { throw bad("\(name.utf8.count) bytes, over the \(maxBytes)-byte limit") }
        if name.hasPrefix(".") { throw bad("a leading '.' is reserved (and '.'/'..' are not names)") }
        for b in name.utf8 {
            if b == UInt8(ascii: "/") { throw bad("contains '/'") }
            if b == 0 { throw bad("contains NUL") }
            if b < 0x20 || b == 0x7F { throw bad("contains a control character") }
        }
    }
}

/// One notify file: `v1 <generation> <state>\n`, decimal (PROTOCOL.md §4.2).
public struct NotifyRecord: Equatable, Sendable {
    public var generation: UInt64
    public var state: UInt64

    public init(generation: UInt64, state: UInt64) {
        self.generation = generation
        self.state = state
    }

    public var encoded: [UInt8] { Array("v1 \(generation) \(state)\n".utf8) }

    /// The generation a post writes after `g`: `g + 1`, wrapping from 2^64−1 to 1 (0 means "never
    /// posted", PROTOCOL.md §4.2).
    public static func generation(after g: UInt64) -> UInt64 { g == .max ? 1 : g + 1 }

    public static func decode(_ bytes: [UInt8]) -> NotifyRecord? {
        guard bytes.count <= 64, bytes.last == UInt8(ascii: "\n") else { return nil }
        let parts = bytes.dropLast().split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].elementsEqual("v1".utf8) else { return nil }
        func num(_ s: ArraySlice<UInt8>) -> UInt64? {
            // Canonical decimal only: no sign, no leading zero (so each value has one spelling).
            guard !s.isEmpty, s.count <= 20, s.count == 1 || s.first != 0x30 else { return nil }
            var v: UInt64 = 0
            for c in s {
                guard c >= 0x30 && c <= 0x39 else { return nil }
                let (m, o1) = v.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(UInt64(c - 0x30))
                if o1 || o2 { return nil }
                v = a
            }
            return v
        }
        guard let g = num(parts[1]), let s = num(parts[2]) else { return nil }
        return NotifyRecord(generation: g, state: s)
    }
}
