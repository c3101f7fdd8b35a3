import Foundation
import Testing
@testable import FocusPledgeServer

/// The server reads only `sessions` of the run's plan file.
@Suite(.timeLimit(.minutes(1))) struct PlannedPledgesTests {
    @Test func readsTheSessionsAndSkipsTheRestOfThePlan() throws {
        let plan = Data("""
            {"deviceDurationSeconds": 86400, "faults": [{"kind": "stop", "target": "host-app", "atDeviceOffsetMillis": 5}],
             "actions": [{"atDeviceOffsetSeconds": 1.5, "action": {"kind": "start", "sid": "s-1"}}],
             "sessions": [{"sessionId": "s-1", "startDeviceOffsetSeconds": 120.5, "durationMinutes": 15},
                          {"sessionId": "s-2", "startDeviceOffsetSeconds": 3600, "durationMinutes": 30}]}
            """.utf8)
        let pledges = try PlannedPledges.parse(plan, path: "schedule.json")
        #expect(pledges.pledges == [
            .init(sessionId: "s-1", startOffsetSeconds: 120.5, durationMinutes: 15),
            .init(sessionId: "s-2", startOffsetSeconds: 3600, durationMinutes: 30),
        ])
    }

    @Test(arguments: [
        ("[1, 2]", "not a plan file"),
        ("{\"actions\": []}", "no \"sessions\" list"),
        ("{\"sessions\": [{\"sessionId\": \"s\", \"startDeviceOffsetSeconds\": -1, \"durationMinutes\": 5}]}", "sessions[0] needs"),
        ("{\"sessions\": [{\"sessionId\": \"s\", \"startDeviceOffsetSeconds\": 1}]}", "sessions[0] needs"),
        ("{\"sessions\": [{\"sessionId\": \"s\", \"startDeviceOffsetSeconds\": 1, \"durationMinutes\": 0}]}", "sessions[0] needs"),
        ("{\"sessions\": [{\"sessionId\": 7, \"startDeviceOffsetSeconds\": 1, \"durationMinutes\": 5}]}", "not a plan file"),
    ])
    func badPlansGetOneLineErrorsNamingTheFile(_ text: String, _ expected: String) {
        #expect {
            _ = try PlannedPledges.parse(Data(text.utf8), path: "p.json")
        } throws: { error in
            let d = (error as? PlannedPledges.ReadError)?.description ?? ""
            return d.hasPrefix("--pledges p.json: ") && d.contains(expected) && !d.contains("\n")
        }
    }
}

/// `JSONMemberScan`: one top-level member's bytes, from a document it checked whole; nil (the
/// whole-file decode then) for anything it does not take.
@Suite(.timeLimit(.minutes(1))) struct JSONMemberScanTests {
    static func member(_ text: String, _ key: String = "sessions") -> String? {
        let bytes = Array(text.utf8)
        return JSONMemberScan.valueRange(ofKey: key, in: bytes).map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    @Test func findsTheMemberAfterAnythingValid() {
        let doc = """
             {"a": [1, -2.5e+3, 0, true, false, null, "x\\"y\\\\z\\u00e9\\n", {"sessions": 9}, [[]], {}],
              "b": {"c": "]}"}, "sessions" : [{"id": "s"}] , "z": -0.0E7}\t
            """
        #expect(Self.member(doc) == #"[{"id": "s"}]"#)
        #expect(Self.member(doc, "z") == "-0.0E7")
        #expect(Self.member(doc, "missing") == nil)
        #expect(Self.member(#"{"sessions":null}"#) == "null")
    }

    @Test(arguments: [
        #"[{"sessions": []}]"#,  // not an object
        #"{"sessions": [], "sessions": []}"#,  // twice
        #"{"sess\u0069ons": []}"#,  // a key with escapes
        #"{"sessions": [1,]}"#, #"{"sessions": [01]}"#, #"{"sessions": [1.]}"#, #"{"sessions": [.5]}"#, #"{"sessions": [+1]}"#,
        #"{"sessions": [], "x": tru}"#, #"{"sessions": [], "x": "\q"}"#, #"{"sessions": [], "x": "\u12"}"#,
        "{\"sessions\": [], \"x\": \"a\u{01}b\"}",  // a raw control character in a string
        #"{"sessions": []} x"#, #"{"sessions": [] "x": 1}"#, #"{"sessions": []"#, #"{"sessions" []}"#, "",
        String(repeating: "[", count: 70) + String(repeating: "]", count: 70),
    ])
    func saysNoToWhatItDoesNotTake(_ text: String) {
        #expect(Self.member(text) == nil)
    }

    @Test func saysNoToInvalidUTF8() {
        var bytes = Array(#"{"sessions": [], "x": "ab"}"#.utf8)
        bytes[24] = 0xFF
        #expect(JSONMemberScan.valueRange(ofKey: "sessions", in: bytes) == nil)
    }

    /// Whatever the scan takes, the sessions it gives are the whole-file decode's.
    @Test func agreesWithTheWholeFileDecodeOnARealPlan() throws {
        var faults: [String] = []
        for i in 0..<500 { faults.append(#"{"atDeviceOffsetMillis": \#(i * 977), "kind": "stop", "target": "host-app \"\#(i)\""}"#) }
        let doc = """
            {"deviceDurationSeconds": 86400, "faults": [\(faults.joined(separator: ",\n"))],
             "sessions": [{"sessionId": "s-1", "startDeviceOffsetSeconds": 120.5, "durationMinutes": 15}], "wallSpanMillis": 0}
            """
        let bytes = Array(doc.utf8)
        let range = try #require(JSONMemberScan.valueRange(ofKey: "sessions", in: bytes))
        let part = try JSONDecoder().decode([PlannedPledges.File.Session].self, from: Data(bytes[range]))
        let whole = try JSONDecoder().decode(PlannedPledges.File.self, from: Data(bytes)).sessions
        #expect(part.map(\.sessionId) == whole?.map(\.sessionId))
        #expect(part.map(\.startDeviceOffsetSeconds) == whole?.map(\.startDeviceOffsetSeconds))
        #expect(try PlannedPledges.parse(Data(bytes), path: "p").pledges.count == 1)
    }
}
