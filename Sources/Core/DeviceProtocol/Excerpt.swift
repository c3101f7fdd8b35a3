/// A value or file contents as an error message may show it: at most
/// `limit` characters, escaped so that no control character, newline or terminal escape reaches a
/// log, and marked when cut. A message never echoes a whole file or a 120 KB argument: a scenario
/// path that is a credentials file, or a JSON value 2000 levels deep, shows only its first bytes.
public enum Excerpt {
    public static let limit = 80

    /// `text` escaped and cut to `limit` characters of output, in double quotes:
    /// `"a\tb"`, `"{\"k\": [[[[…" (120034 bytes)`.
    public static func quoted(_ text: String, limit: Int = Excerpt.limit) -> String {
        var out = ""
        var shown = 0
        var cut = false
        for scalar in text.unicodeScalars {
            let piece: String
            switch scalar {
            case "\"": piece = "\\\""
            case "\\": piece = "\\\\"
            case "\n": piece = "\\n"
            case "\r": piece = "\\r"
            case "\t": piece = "\\t"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.properties.generalCategory == .format
                    || scalar.value == 0xFFFD
                {
                    piece = "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    piece = String(scalar)
                }
            }
            if shown + piece.count > limit {
                cut = true
                break
            }
            out += piece
            shown += piece.count
        }
        return cut ? "\"\(out)…\" (\(text.utf8.count) bytes)" : "\"\(out)\""
    }

    /// `quoted` without the quotes and the byte count, for messages that quote with '…': at
    /// most `limit` characters, escaped, "…" when cut.
    public static func inner(_ text: String, limit: Int = Excerpt.limit) -> String {
        let q = quoted(text, limit: limit)
        guard q.hasSuffix(" bytes)"), let end = q.range(of: "…\" (", options: .backwards) else { return String(q.dropFirst().dropLast()) }
        return String(q[q.index(after: q.startIndex)..<end.lowerBound]) + "…"
    }

    /// The first bytes of a file or argument that may not be text: its UTF-8 decoding (invalid
    /// bytes as U+FFFD, shown `\u{fffd}`) through `quoted`.
    public static func quoted(bytes: some Collection<UInt8>, limit: Int = Excerpt.limit) -> String {
        let head = String(decoding: bytes.prefix(limit * 4), as: UTF8.self)
        let q = quoted(head, limit: limit)
        return bytes.count > limit * 4 && !q.hasSuffix("bytes)") ? String(q.dropLast()) + "…\" (\(bytes.count) bytes)" : q
    }
}
