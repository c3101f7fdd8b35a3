import Foundation
import History

/// A small run, written the way the core writes one: the harness spawns, suspends and kills
/// processes (their name in `target`), calls an extension (its `childPid`), a server beats every
/// 5 s (more lines than one series is drawn with), and report.json cites two lines.
enum RunReportFixture {
    static let t0 = 1_771_315_200.0

    static func line(_ mono: Int64, _ t: Double, _ process: String, _ pid: Int32, _ event: String, _ fields: [String: String] = [:]) -> HistoryEvent {
        HistoryEvent(mono: mono, t: t0 + t, process: process, pid: pid, event: event, fields: fields)
    }

    static var events: [HistoryEvent] {
        var e: [HistoryEvent] = [
            line(1, 0, "harness", 10, "run_started", ["command": "harness run demo.yaml --variant as-written --seed 7", "scenario": "demo", "variant": "as-written", "seed": "7", "system": "demo"]),
            line(2, 0, "harness", 10, "spawn", ["childPid": "20", "target": "host-app"]),
            line(3, 0, "harness", 10, "spawn", ["childPid": "21", "target": "server"]),
            line(4, 1, "host-app", 20, "launched"),
            line(5, 60, "harness", 10, "signal", ["by": "ios", "childPid": "20", "signal": "STOP", "target": "host-app"]),
            line(6, 120, "harness", 10, "signal", ["by": "ios", "childPid": "20", "signal": "CONT", "target": "host-app"]),
            line(7, 130, "harness", 10, "spawn", ["childPid": "22", "target": "monitor-extension"]),
            line(8, 130, "harness", 10, "callback_delivered", ["callback": "intervalDidStart", "childPid": "22", "delivery": "1"]),
            line(9, 131, "monitor-extension", 22, "callback_begin"),
            line(10, 131, "harness", 10, "exit", ["childPid": "22", "status": "exit 0", "target": "monitor-extension"]),
            line(11, 200, "host-app", 20, "weird_thing", ["note": "<script>alert(1)</script>"]),
            line(12, 900, "harness", 10, "signal", ["by": "nemesis", "childPid": "20", "signal": "KILL", "target": "host-app"]),
            line(13, 900, "harness", 10, "exit", ["childPid": "20", "status": "signal 9", "target": "host-app"]),
            line(14, 950, "harness", 10, "callback_dropped", ["callback": "intervalDidEnd", "fault": "drop"]),
            line(15, 960, "harness", 10, "callback_held", ["callback": "intervalDidStart", "fault": "batch"]),
            // An extension the harness calls without a spawn line: its lane and lifetime come from the call.
            line(16, 970, "harness", 10, "callback_delivered", ["callback": "shieldAction", "childPid": "23", "delivery": "2"]),
            line(17, 970, "shield-extension", 23, "callback_begin"),
            line(18, 975, "harness", 10, "callback_completed", ["callback": "shieldAction", "childPid": "23", "status": "exit 0"]),
        ]
        // 400 heartbeats: more than Timeline.maxMarkersPerSeries on one lane.
        for i in 0..<400 { e.append(line(100 + Int64(i), Double(i) * 2.5, "server", 21, "heartbeat", ["n": String(i)])) }
        e.append(line(1000, 1000, "harness", 10, "run_finished"))
        return e.sorted { ($0.t, $0.mono) < ($1.t, $1.mono) }
    }

    static var history: Data { Data((events.map { $0.jsonLine() }.joined(separator: "\n") + "\n").utf8) }

    /// Cites the kill (line with mono 12) and the 100th heartbeat.
    static var report: Data {
        let cited = events.filter { $0.mono == 12 || $0.mono == 200 }
        let citedJSON = cited.map { $0.jsonLine() }.joined(separator: ",")
        return Data("""
            {"checker":"demo","decided":true,"schemaVersion":2,
             "results":[{"name":"host-survives","passed":false,"checkedCount":1},{"name":"beats","passed":true,"checkedCount":3}],
             "violations":[{"invariant":"host-survives","subject":{"kind":"session","id":"s-1"},"explanation":"the host was killed while beating","relevantEvents":[\(citedJSON)]}],
             "latencies":[{"name":"call-to-seen","what":"a call -> seen","count":6,"p50Micros":150,"p99Micros":3000,"maxMicros":3000,
                           "buckets":[[100,2],[150,2],[900,1],[3000,1]],"excluded":{}},
                          {"name":"empty-series","what":"nothing measured","count":0,"buckets":[],"excluded":{}}],
             "heartbeats":[{"monitor":"watchdog","writer":"host-beat","monitorRole":"server","writerRole":"host-app","rule":"now - beat > 30",
                            "decisions":2,"trueAlarms":1,"falseAlarms":1,"falseAlarmStates":{"suspended-by-ios":1},"falseAlarmsMonitorDown":0,
                            "deaths":1,"detected":1,"missed":0,"detectionLatencyP50Seconds":33,"detectionLatencyP99Seconds":33,
                            "findings":[{"kind":"false-alarm","t":1771300060,"writerState":"suspended-by-ios","detail":"suspended by iOS"},
                                        {"kind":"true-alarm","t":1771300090,"writerState":"killed","detail":"SIGKILL by the nemesis","latencySeconds":33}],
                            "findingsOmitted":0}]}
            """.utf8)
    }
}
