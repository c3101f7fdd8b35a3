import Foundation

/// Which build a run used: the GNU build ids (`.note.gnu.build-id`, a hash of the linked output
/// that the linker writes) of the harness and of every executable the system's roles run. Two
/// builds of the same sources with the same toolchain give the same ids; any change gives others.
/// Recorded in `run_started` (`build`) so that `harness replay` refuses a run of another build.
package enum BuildIdentity {
    /// `name=<hex build id>` for each executable, sorted by name, comma-separated; an executable
    /// without a build id (or missing) is `name=?`.
    package static func of(binDirectory: String, executables: [String]) -> String {
        Set(executables).sorted().map { name in
            "\(name)=\(elfBuildId(path: name.hasPrefix("/") ? name : binDirectory + "/" + name) ?? "?")"
        }.joined(separator: ",")
    }

    /// The executables whose ids differ between two identities (`name: recorded → now`).
    package static func differences(recorded: String, now: String) -> [String] {
        func parse(_ s: String) -> [String: String] {
            var out: [String: String] = [:]
            for part in s.split(separator: ",") {
                let kv = part.split(separator: "=", maxSplits: 1).map(String.init)
                if kv.count == 2 { out[kv[0]] = kv[1] }
            }
            return out
        }
        let a = parse(recorded), b = parse(now)
        return Set(a.keys).union(b.keys).sorted().compactMap { k in
            a[k] == b[k] ? nil : "\(k): recorded \(a[k].map { String($0.prefix(12)) } ?? "none"), here \(b[k].map { String($0.prefix(12)) } ?? "none")"
        }
    }

    /// Reads the NT_GNU_BUILD_ID note of an ELF64 little-endian file through its program headers
    /// (PT_NOTE); nil when there is none. Reads at most a few KiB.
    package static func elfBuildId(path: String) -> String? {
        guard let h = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? h.close() }
        func read(_ offset: UInt64, _ count: Int) -> [UInt8]? {
            guard (try? h.seek(toOffset: offset)) != nil, let d = try? h.read(upToCount: count), d.count == count else { return nil }
            return [UInt8](d)
        }
        func u16(_ b: [UInt8], _ o: Int) -> Int { Int(b[o]) | Int(b[o + 1]) << 8 }
        func u32(_ b: [UInt8], _ o: Int) -> Int { u16(b, o) | u16(b, o + 2) << 16 }
        func u64(_ b: [UInt8], _ o: Int) -> UInt64 { UInt64(u32(b, o)) | UInt64(u32(b, o + 4)) << 32 }
        guard let e = read(0, 64), e[0] == 0x7F, e[1] == 0x45, e[2] == 0x4C, e[3] == 0x46, e[4] == 2, e[5] == 1 else { return nil }
        let phoff = u64(e, 0x20), phentsize = u16(e, 0x36), phnum = u16(e, 0x38)
        guard phentsize >= 56, phnum <= 64 else { return nil }
        for i in 0..<phnum {
            guard let ph = read(phoff + UInt64(i * phentsize), 56), u32(ph, 0) == 4 else { continue }  // PT_NOTE
            let offset = u64(ph, 8), size = Int(min(u64(ph, 32), 4096))
            guard let notes = read(offset, size) else { continue }
            var at = 0
            while at + 12 <= notes.count {
                let namesz = u32(notes, at), descsz = u32(notes, at + 4), type = u32(notes, at + 8)
                let nameStart = at + 12, descStart = nameStart + (namesz + 3) / 4 * 4
                guard descStart + descsz <= notes.count else { break }
                if type == 3, namesz == 4, notes[nameStart..<nameStart + 3] == [0x47, 0x4E, 0x55] {  // "GNU"
                    return notes[descStart..<descStart + descsz].map { String(format: "%02x", $0) }.joined()
                }
                at = descStart + (descsz + 3) / 4 * 4
            }
        }
        return nil
    }
}
