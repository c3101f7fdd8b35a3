import Foundation

/// How a name the app chooses (an activity, a store, a notification identifier) becomes a file
/// name under `system/`: every byte outside `[A-Za-z0-9_.-]`, and a leading `.`, is written
/// `%XX` (upper-case hex), then `.json` is appended. `focuspledge_s-1` stays `focuspledge_s-1.json`;
/// `a/b` becomes `a%2Fb.json`. Names whose file name would pass 250 bytes are refused.
public enum OSFileName {
    public static let maxFileNameBytes = 250

    public static func encode(_ name: String) -> String? {
        guard !name.isEmpty else { return nil }
        var out = ""
        for (i, b) in name.utf8.enumerated() {
            let plain = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x2D
                || (b == 0x2E && i > 0)
            if plain { out.unicodeScalars.append(UnicodeScalar(b)) } else { out += String(format: "%%%02X", b) }
        }
        out += ".json"
        return out.utf8.count <= maxFileNameBytes ? out : nil
    }

    /// The name back from a record file name; nil when it is not one of ours.
    public static func decode(_ fileName: String) -> String? {
        guard OSPaths.isRecordName(fileName) else { return nil }
        let body = Array(fileName.utf8.dropLast(5))
        var bytes: [UInt8] = []
        var i = 0
        while i < body.count {
            if body[i] == 0x25 {
                guard i + 2 < body.count, let v = UInt8(String(decoding: body[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(v)
                i += 3
            } else {
                bytes.append(body[i])
                i += 1
            }
        }
        return String(bytes: bytes, encoding: .utf8)
    }
}
