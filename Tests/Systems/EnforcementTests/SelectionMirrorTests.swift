import EnforcementStore
import Foundation
import Testing

/// The host's SQLite mirror (GRDB): replaced whole, WAL, and readable read-only after a kill.
@Suite(.timeLimit(.minutes(1))) struct SelectionMirrorTests {
    static func path() -> String { NSTemporaryDirectory() + "sth-mirror-\(getpid())-\(UUID().uuidString.prefix(8))/Library/enforcement.sqlite" }

    @Test func theMirrorHoldsExactlyTheLastSelectionInWALMode() throws {
        let p = Self.path()
        defer { try? FileManager.default.removeItem(atPath: ((p as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent) }
        let m = try SelectionMirror(path: p)
        try m.replace(with: ["b", "a", "b"])
        try m.replace(with: ["c", "a"])
        #expect(try m.ids() == ["a", "c"])
        let seen = SelectionMirror.inspect(path: p)
        #expect(seen == SelectionMirror.Inspection(ids: ["a", "c"], integrity: "ok", journalMode: "wal"))
        // Reopening (a relaunch) keeps the rows.
        #expect(try SelectionMirror(path: p).ids() == ["a", "c"])
    }

    @Test func aMissingOrGarbageDatabaseIsReportedNotACrash() throws {
        let p = Self.path()
        defer { try? FileManager.default.removeItem(atPath: ((p as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent) }
        #expect(SelectionMirror.inspect(path: p).ids == nil)
        try FileManager.default.createDirectory(atPath: (p as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: p))
        let seen = SelectionMirror.inspect(path: p)
        #expect(seen.ids == nil && seen.integrity.hasPrefix("unreadable"))
    }
}
