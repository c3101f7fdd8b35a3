import AppGroup
@testable import HarnessKit
import Testing

/// A failpoint whose label no crash point of the system can spell is refused before anything runs
/// (it would arm nothing in every run); what depends on the run is left to the run.
@Suite(.timeLimit(.minutes(1))) struct FailpointReachTests {
    static let descriptor = SystemDescriptor(
        id: "reach", title: "reach", seed: "test", variants: ["as-written", "hardened"], appGroups: ["group.test.reach"],
        roles: [
            ProcessRole(name: "host", lifetime: .app, executable: "x", summary: "app"),
            ProcessRole(name: "shield", lifetime: .extension(.shieldAction), executable: "x", summary: "shield action"),
            ProcessRole(name: "api", lifetime: .server, executable: "x", summary: "server"),
        ],
        invariants: [], scenarioKeys: [], defaultSettleSeconds: 60)

    static func problem(_ spec: String) throws -> String? {
        let point = try Failpoint.parse(spec, processes: descriptor.crashPointProcesses)
        return FailpointReach.problem(point, in: descriptor)?.message
    }

    @Test func labelsTheSystemCanPassAreAccepted() throws {
        for spec in [
            "host:defaults:group.test.reach/a,b=kill", "host:defaults:standard/k=kill", "host:defaults:com.example.prefs/k#2=kill",
            "host:post:com.x.changed=kill", "host:http.reply:api POST /sessions=error", "host:http.send:api GET /health=delay(5)",
            "shield:respond=kill", "host:authorization:screenTime=kill", "host:notifications.remove=kill", "host:step:anything=kill",
            "host:monitoring.start:night=kill", "host:webContent:default=kill",
        ] {
            #expect(try Self.problem(spec) == nil, "\(spec)")
        }
    }

    @Test func labelsNoRunCanPassAreRefusedSayingWhy() throws {
        let cases: [(String, String)] = [
            ("host:defaults:group.other/k=kill", "\"group.other\" is not an App Group of the system (its App Groups: group.test.reach)"),
            ("host:defaults:group.test.reach/=kill", "names the keys a write changed after the suite"),
            ("host:defaults:group.test.reach=kill", "a defaults label is defaults:<suite>/<keys>"),
            ("host:defaults=kill", "a 'defaults' crash point's label ends in its detail"),
            ("host:badge:x=kill", "a 'badge' crash point has no detail after its kind"),
            ("host:respond=kill", "only a shield-action extension answers a shield (respond); host is app"),
            ("host:authorization:camera=kill", "authorization's detail is the prompt, screenTime or notifications"),
            ("host:http.reply:settlement POST /x=error", "\"settlement\" is not a server of the system (its servers: api)"),
        ]
        for (spec, words) in cases {
            let message = try Self.problem(spec)
            #expect(message?.contains(words) == true, "\(spec): \(message ?? "accepted")")
            #expect(message?.hasSuffix("no run of reach passes this label, so it would arm nothing") == true, "\(spec)")
        }
    }
}
