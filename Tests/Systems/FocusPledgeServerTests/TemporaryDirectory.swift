import Foundation

/// A fresh directory per test (Swift Testing runs tests in parallel), removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init(_ label: String = #function) throws {
        let name = "settlement-tests-\(label.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString)"
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: file(name)))) }

    func append(_ text: String, to name: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file(name)))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

import FocusPledge
import FocusPledgeServer

/// Typed conveniences over the store's one entry point, for tests.
extension SettlementStore {
    @discardableResult
    func createSession(sessionId: String, durationMinutes: Int) async -> SettlementService.Reply {
        let body = try! JSONEncoder().encode(SettlementAPI.CreateSessionBody(sessionId: sessionId, durationMinutes: durationMinutes))
        return await handle(method: "POST", path: "/sessions", body: body)
    }
    func session(_ sessionId: String) async -> SessionRecord? { await currentLedger().session(sessionId) }
    func lastLedgerSeq() async -> UInt64 { await currentLedger().lastLedgerSeq }
    func sessionCount() async -> Int { await currentLedger().sessions.count }
}
