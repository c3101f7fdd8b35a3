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
