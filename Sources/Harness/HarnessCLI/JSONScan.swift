/// What `defaults write --type json` checks in the text before decoding it: how deep
/// it nests (JSONDecoder stops at 512 levels, a suite's reader at `PropertyListCodec.maxValueNesting`),
/// and whether an integer literal is too large for a 64-bit integer — JSONDecoder would turn a
/// 30-digit integer into a real without a word.
enum JSONScan {
    /// The deepest nesting of `[` and `{` outside strings.
    static func maxNesting(_ text: String) -> Int {
        var depth = 0, deepest = 0
        forEachToken(text) { byte, _ in
            if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                depth += 1
                deepest = max(deepest, depth)
            } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
                depth -= 1
            }
        }
        return deepest
    }

    /// The first number literal outside strings without a fraction or exponent that does not fit
    /// an `Int64`, or nil.
    static func integerBeyondInt64(_ text: String) -> String? {
        var found: String?
        forEachToken(text) { _, number in
            if found == nil, let number, !number.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), Int64(number) == nil {
                found = number
            }
        }
        return found
    }

    /// Calls `body` with every structural byte outside strings, and with every number literal.
    private static func forEachToken(_ text: String, _ body: (UInt8, String?) -> Void) {
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                i += 1
                while i < bytes.count, bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
                i += 1
            } else if b == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) {
                let start = i
                i += 1
                while i < bytes.count, "0123456789.eE+-".utf8.contains(bytes[i]) { i += 1 }
                body(b, String(decoding: bytes[start..<i], as: UTF8.self))
            } else {
                body(b, nil)
                i += 1
            }
        }
    }
}
