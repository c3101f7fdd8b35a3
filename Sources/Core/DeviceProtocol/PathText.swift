/// Paths as text, without Foundation's `NSString` path methods: on Linux (Swift 6.3)
/// `deletingLastPathComponent` traps for a name with no `/` in it (`--index index.html`,
/// `--junit 1`, a run directory given as `runA`).
public enum PathText {
    /// The directory `path` is in: `a/b/c` → `a/b`, `/c` → `/`, `c` → `.`; trailing slashes are
    /// not a component (`a/b/` → `a`).
    public static func directory(of path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
        guard let slash = p.lastIndex(of: "/") else { return "." }
        let d = p[..<slash]
        return d.isEmpty ? "/" : String(d)
    }
}
