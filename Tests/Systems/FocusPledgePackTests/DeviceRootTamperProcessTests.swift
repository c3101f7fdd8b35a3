import AppGroup
import Foundation
import History
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Tampering with the device root from outside a run was blamed on the app — a
/// notify record replaced by a FIFO gave exit 1 `no-store-corrupt`, the FocusPledge suite replaced
/// by a symlink to /etc/shadow five violations. Each protocol file kind (notify record, suite,
/// system/ record, clock, heartbeat, sandbox), replaced mid-run by a FIFO, a symlink or garbage,
/// now ends the run TAMPERED (exit 2) with a `tamper` history line naming the file — never a
/// violation. No participant needs to read the file first: the harness's watch of the root sees it.
@Suite(.serialized, .timeLimit(.minutes(3))) struct DeviceRootTamperProcessTests {
    typealias Dir = HarnessRunProcessTests.Dir

    enum Replacement: String, CaseIterable, Sendable {
        case fifo, symlink, garbage
        /// What any participant could have written — a valid, empty suite — put there by hand.
        case validEmptySuite
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var kind: String
        /// Relative to the device root.
        var file: String
        var replacement: Replacement
        /// What the `tamper` line's `file` field names (the clock's check names "clock").
        var reportedFile: String
        var testDescription: String { "\(kind) → \(replacement.rawValue)" }
    }

    static let suite = "containers/group.com.focuspledge.shared/Library/Preferences/group.com.focuspledge.shared.plist"
    static let cases: [Case] = [Replacement.fifo, .symlink, .garbage].flatMap { r in
        [
            Case(kind: "notify record", file: "notify/system.inbox.host-app", replacement: r, reportedFile: "notify/"),
            Case(kind: "suite", file: suite, replacement: r, reportedFile: "containers/"),
            Case(kind: "system/ record", file: "system/managedsettings/default.json", replacement: r, reportedFile: "system/"),
            Case(kind: "clock", file: "clock", replacement: r, reportedFile: "clock"),
        ]
    } + [
        // Records the OS reads once (authorization) or only on a change notification
        // (deviceactivity): garbage there was blamed on the app, or went unseen.
        Case(kind: "authorization record", file: "system/authorization/familycontrols.json", replacement: .garbage, reportedFile: "system/authorization/familycontrols.json"),
        Case(kind: "new deviceactivity record", file: "system/deviceactivity/planted.json", replacement: .garbage, reportedFile: "system/deviceactivity/planted.json"),
        // Blamed on the app as blocked-app-shielded (exit 1): not the plist the suite's writers put there.
        Case(kind: "suite", file: suite, replacement: .validEmptySuite, reportedFile: suite),
        // The rest of the root, each found from its own event (the tamper watch): a heartbeat, a
        // file of the app's own in the container, a process's sandbox and private store.
        Case(kind: "heartbeat", file: "containers/group.com.focuspledge.shared/Heartbeats/host-app.json", replacement: .garbage, reportedFile: "containers/group.com.focuspledge.shared/Heartbeats/host-app.json"),
        Case(kind: "app file in the container", file: "containers/group.com.focuspledge.shared/planted", replacement: .fifo, reportedFile: "containers/group.com.focuspledge.shared/planted"),
        Case(kind: "sandbox", file: "sandboxes/host-app/planted", replacement: .symlink, reportedFile: "sandboxes/host-app/planted"),
        Case(kind: "private store", file: "sandboxes/host-app/Library/Preferences/standard.plist", replacement: .garbage, reportedFile: "sandboxes/host-app/Library/Preferences/standard.plist"),
    ]

    @Test(arguments: cases)
    func tamperingIsReportedAsSuchNeverAsAViolation(_ c: Case) throws {
        let d = try Dir()
        let (h, run, root) = try HarnessReliabilityProcessTests.startLongRun(d)
        defer { h.killAndReap() }
        // What the system wrote is replaced the way an outsider would: made beside it (same
        // filesystem), renamed over it.
        let target = root + "/" + c.file
        let beside = PathText.directory(of: target) + "/planted-by-test"
        try FileManager.default.createDirectory(atPath: PathText.directory(of: target), withIntermediateDirectories: true)
        switch c.replacement {
        case .fifo: #expect(mkfifo(beside, 0o600) == 0)
        case .symlink:
            try "root:secret-hash:19000:0:99999:7:::\n".write(toFile: d.path + "/shadow", atomically: false, encoding: .utf8)
            #expect(symlink(d.path + "/shadow", beside) == 0)
        case .garbage: try "\u{1}garbage, not what any participant writes\n".write(toFile: beside, atomically: false, encoding: .utf8)
        case .validEmptySuite:
            let empty = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n" + #"<plist version="1.0"><dict/></plist>"# + "\n"
            try empty.write(toFile: beside, atomically: false, encoding: .utf8)
        }
        #expect(rename(beside, target) == 0, "rename: \(String(cString: strerror(errno)))")
        var out: [String] = []
        while let l = h.readLine(timeout: .seconds(90)) { out.append(l) }
        let text = out.joined(separator: "\n")
        #expect(h.wait(timeout: .seconds(30)) == .exited(2), "harness said:\n\(text)")
        #expect(text.contains("TAMPERED"), "\(text)")
        #expect(text.contains("tampered with"), "\(text)")
        #expect(!text.contains("invariant violated"), "\(text)")
        #expect(!text.contains("secret-hash"), "the symlink's target was read: \(text)")
        #expect(text.contains("the tampering came from outside the run and is not replayed"), "\(text)")
        let history = HistoryEvent.parse(jsonl: try Data(contentsOf: URL(fileURLWithPath: run + "/history.jsonl"))).events
        let tamper = try #require(history.first { $0.event == "tamper" }, "no tamper line")
        #expect(tamper["file"]?.hasPrefix(c.reportedFile) == true, "file: \(tamper["file"] ?? "nil")")
        #expect(try String(contentsOfFile: run + "/report.json", encoding: .utf8).contains("\"tampered\""))
    }
}
