import Foundation
import GRDB

/// The host's SQLite database (GRDB, WAL) in its private sandbox: seed 001's "Mirror 'selected
/// app ids' into your SQLite for display and for Android parity". One table, `selected_app`, whose
/// rows are replaced in one transaction: a kill at any point leaves the old rows or the new ones.
public final class SelectionMirror {
    let pool: DatabasePool

    /// Opens (creating) the database at `path`, WAL mode (a `DatabasePool` always is).
    public init(path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        pool = try DatabasePool(path: path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "selected_app") { t in
                t.column("app_id", .text).primaryKey()
            }
        }
        try migrator.migrate(pool)
    }

    /// The mirror becomes exactly `ids`.
    public func replace(with ids: [String]) throws {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM selected_app")
            for id in Set(ids).sorted() {
                try db.execute(sql: "INSERT INTO selected_app (app_id) VALUES (?)", arguments: [id])
            }
        }
    }

    public func ids() throws -> [String] {
        try pool.read { db in try String.fetchAll(db, sql: "SELECT app_id FROM selected_app ORDER BY app_id") }
    }

    /// What a reader finds in the database after the run, opened read-only (nothing written, no
    /// checkpoint): the ids, `PRAGMA integrity_check` and the journal mode.
    public struct Inspection: Sendable, Equatable {
        /// nil: the file does not exist.
        public var ids: [String]?
        public var integrity: String
        public var journalMode: String

        public init(ids: [String]?, integrity: String, journalMode: String) {
            self.ids = ids
            self.integrity = integrity
            self.journalMode = journalMode
        }
    }

    public static func inspect(path: String) -> Inspection {
        guard FileManager.default.fileExists(atPath: path) else { return Inspection(ids: nil, integrity: "no database", journalMode: "") }
        do {
            var config = Configuration()
            config.readonly = true
            let q = try DatabaseQueue(path: path, configuration: config)
            return try q.read { db in
                let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ")
                let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? ""
                let hasTable = try db.tableExists("selected_app")
                let ids = hasTable ? try String.fetchAll(db, sql: "SELECT app_id FROM selected_app ORDER BY app_id") : []
                return Inspection(ids: ids, integrity: integrity, journalMode: mode)
            }
        } catch {
            return Inspection(ids: nil, integrity: "unreadable: \(error)", journalMode: "")
        }
    }
}
