import Foundation
import History
import Testing

@testable import HarnessKit

/// The harness's own lines are one typed vocabulary (`HarnessLine`: the recorder takes nothing
/// else), and docs/HISTORY-LINES.md is generated from it
/// (`STH_UPDATE_DOCS=1 swift test --skip-build --filter HarnessLineCatalogTests`) and checked against it.
@Suite(.timeLimit(.minutes(1))) struct HarnessLineCatalogTests {
    static let documentPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/HISTORY-LINES.md").path

    static let sections: [(HarnessLine.Source, String)] = [
        (.run, "The run's own bookkeeping"),
        (.process, "Its processes"),
        (.ios, "What the emulated iOS did, refused or was asked"),
        (.nemesis, "Faults the scenario asked for (the nemesis, `os.faults`)"),
        (.user, "The user's steps"),
    ]

    static func document() -> String {
        var doc = """
            # The harness's history lines

            Every line the harness writes to the history as itself (`"process": "harness"`), by who
            writes it; the line format, the merge and the run directory are [HISTORY.md](HISTORY.md) §8.
            Every field value is a string. `?` marks a field that is not always there; `<…>` fields a pack
            chooses (a user step's label, which iOS carries onto the calls it makes for that step). A
            pack adds lines of its own after the run (FocusPledge's `ledger`, Enforcement's
            `sqlite_mirror`): those are documented in its README. A checker reads these lines through
            `HistoryIndex` (CheckerKit) and `HistoryEvent.harnessLine`.

            Generated from `HarnessLine` (Sources/Harness/HarnessKit/CheckerKit/HarnessLine.swift), the only
            names the harness's recorder takes, by `Tests/HarnessKitTests/Checker/HarnessLineCatalogTests.swift`
            (`STH_UPDATE_DOCS=1 swift test --skip-build --filter HarnessLineCatalogTests` rewrites it).

            """
        for (source, title) in sections {
            doc += "\n## \(title)\n\n| line | fields | meaning |\n| --- | --- | --- |\n"
            for line in HarnessLine.allCases where line.source == source {
                let fields = line.fields.map { "`\($0)`" }.joined(separator: ", ")
                doc += "| `\(line.rawValue)` | \(fields.isEmpty ? "—" : fields) | \(line.meaning.replacingOccurrences(of: "|", with: "\\|")) |\n"
            }
        }
        return doc
    }

    @Test func theDocumentIsTheCatalogue() throws {
        let doc = Self.document()
        if ProcessInfo.processInfo.environment["STH_UPDATE_DOCS"] == "1" {
            try doc.write(toFile: Self.documentPath, atomically: false, encoding: .utf8)
        }
        #expect(((try? String(contentsOfFile: Self.documentPath, encoding: .utf8)) ?? "") == doc,
            "docs/HISTORY-LINES.md is out of date: STH_UPDATE_DOCS=1 swift test --skip-build --filter HarnessLineCatalogTests")
    }

    @Test func everyLineIsDescribedOnceAndReadBack() {
        #expect(Set(HarnessLine.allCases.map(\.rawValue)).count == HarnessLine.allCases.count)
        for line in HarnessLine.allCases {
            #expect(!line.meaning.isEmpty, "\(line)")
            #expect(line.rawValue.allSatisfy { $0.isLowercase || $0 == "_" }, "\(line)")
            let e = HistoryEvent(mono: 1, t: 0, process: HistoryEvent.harnessProcessName, pid: 1, event: line.rawValue)
            #expect(e.harnessLine == line && e.isHarnessLine(line))
        }
        // A process's line of the same name is not the harness's; a pack's own line is no HarnessLine.
        #expect(HistoryEvent(mono: 1, t: 0, process: "host-app", pid: 2, event: "spawn").harnessLine == nil)
        #expect(HistoryEvent(mono: 1, t: 0, process: HistoryEvent.harnessProcessName, pid: 1, event: "ledger").harnessLine == nil)
    }

    /// What the recorder wrote is what the catalogue names (the recorder's counts by name).
    @Test func theRecorderWritesTheCataloguesNames() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sth-lines-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rec = try HarnessRecorder(runDirectory: dir, clock: HarnessClock())
        let e = rec.record(.hostState, ["state": "foreground"])
        rec.recordEvidence("ledger", ["sessionId": "s-1"])
        #expect(e.harnessLine == .hostState && e["state"] == "foreground")
        #expect(rec.counts == ["host_state": 1, "ledger": 1])
    }
}
