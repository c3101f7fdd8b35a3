import Foundation
import AppGroup
import HarnessKit
import Testing

@Suite(.timeLimit(.minutes(1))) struct VirtualSchedulerTests {
    func report(_ pid: Int32, seq: UInt64 = 1, next: Double? = nil, http: [String: Int] = [:], consumed: [String: UInt64] = [:]) -> SchedulerReport {
        SchedulerReport(pid: pid, seq: seq, nextUnixSeconds: next, http: http, consumed: consumed)
    }

    @Test func reportsRoundTripThroughTheirLineFormatAndMalformedLinesAreRefused() {
        let r = report(42, seq: 7, next: 1_771_315_205.5, http: ["settlement-server": 1], consumed: ["system.wake.42": 3, "a=b": 9])
        #expect(r.line.hasSuffix("\n") && !r.line.dropLast().contains("\n"))
        #expect(SchedulerReport(line: Substring(r.line)) == r)
        #expect(SchedulerReport(line: Substring(report(1).line)) == report(1))
        for bad in ["", "v2\t1\t1\t-\t-", "v1\tx\t1\t-\t-", "v1\t1\t1\tsoon\t-", "v1\t1\t1\t-\ts:x", "v1\t1\t1\t-\t-\tname"] {
            #expect(SchedulerReport(line: Substring(bad)) == nil, "\(bad)")
        }
    }

    /// The byte parser (the harness reads every report of every step) answers as the String
    /// parser it replaced — kept here as the reference — on valid lines, their mutations and
    /// numbers in every form the standard library reads; the bytes written are the old String's.
    @Test func theByteParserAndWriterAgreeWithTheStringOnes() {
        func reference(_ raw: Substring) -> SchedulerReport? {
            let line = raw.hasSuffix("\n") ? raw.dropLast() : raw
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard parts.count >= 5, parts[0] == "v1", let pid = Int32(parts[1]), let seq = UInt64(parts[2]) else { return nil }
            var next: Double?
            if parts[3] != "-" {
                guard let n = Double(parts[3]), n.isFinite else { return nil }
                next = n
            }
            var http: [String: Int] = [:]
            if parts[4] != "-" {
                for entry in parts[4].split(separator: ",") {
                    guard let colon = entry.lastIndex(of: ":"), let count = Int(entry[entry.index(after: colon)...]), count >= 0 else { return nil }
                    http[String(entry[..<colon])] = count
                }
            }
            var consumed: [String: UInt64] = [:]
            for entry in parts.dropFirst(5) {
                guard let eq = entry.lastIndex(of: "="), let gen = UInt64(entry[entry.index(after: eq)...]) else { return nil }
                consumed[String(entry[..<eq])] = gen
            }
            return SchedulerReport(pid: pid, seq: seq, nextUnixSeconds: next, http: http, consumed: consumed)
        }
        func referenceLine(_ r: SchedulerReport) -> String {
            var out = "v1\t\(r.pid)\t\(r.seq)\t" + (r.nextUnixSeconds.map { String(format: "%.3f", $0) } ?? "-") + "\t"
            let services = r.http.filter { $0.value > 0 }.sorted { $0.key < $1.key }
            if services.isEmpty { out += "-" }
            for (i, s) in services.enumerated() { out += (i == 0 ? "" : ",") + s.key + ":" + String(s.value) }
            for (name, generation) in r.consumed.sorted(by: { $0.key < $1.key }) { out += "\t" + name + "=" + String(generation) }
            return out + "\n"
        }
        var g = SystemRandomNumberGenerator()
        let numbers = ["0", "7", "007", "+5", "-5", "2147483647", "2147483648", "-2147483648", "18446744073709551615",
            "18446744073709551616", "9999999999999999999", "", " 1", "1 ", "x", "1771315205.500", "1771315205.5", "-2.250",
            "1e3", "0x1p3", "inf", "nan", "1771315205.5000", ".500", "1.", "123456789012345.678", "9007199254740.993"]
        let names = ["system.wake.42", "a=b", "com.focuspledge.failure", "é", "x:y", "", "-"]
        var lines: [String] = []
        for _ in 0..<3000 {
            let r = report(
                Int32.random(in: 0...Int32.max, using: &g), seq: UInt64.random(in: 0...UInt64.max, using: &g),
                next: Bool.random(using: &g) ? nil : Double(Int64.random(in: 0...4_102_444_800_000, using: &g)) / 1000,
                http: Bool.random(using: &g) ? [:] : [names.randomElement(using: &g)!: Int.random(in: 0...3, using: &g)],
                consumed: Dictionary(uniqueKeysWithValues: names.shuffled(using: &g).prefix(Int.random(in: 0...3, using: &g))
                    .map { ($0, UInt64.random(in: 0...UInt64.max, using: &g)) }))
            #expect(r.line == referenceLine(r), "the bytes written")
            lines.append(r.line)
            // Mutations: one field replaced by a number in another form, a byte dropped, a tab or comma added.
            var fields = r.line.dropLast().split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let i = Int.random(in: 0..<fields.count, using: &g)
            fields[i] = Bool.random(using: &g) ? numbers.randomElement(using: &g)! : fields[i] + (Bool.random(using: &g) ? "," : ":") + numbers.randomElement(using: &g)!
            lines.append(fields.joined(separator: "\t") + (Bool.random(using: &g) ? "\n" : ""))
            var bytes = Array(r.line.utf8)
            bytes.remove(at: Int.random(in: 0..<bytes.count, using: &g))
            lines.append(String(decoding: bytes, as: UTF8.self))
        }
        lines += ["", "\n", "v1", "v1\t1\t1\t-\t", "v1\t1\t1\t-\t-\t", "v1\t1\t1\t-\t,,a:1,,", "v1\t1\t1\t-\ta:1:2", "v1\t1\t1\t-\t-\ta=b=3"]
        var accepted = 0
        for line in lines {
            let expected = reference(Substring(line))
            #expect(SchedulerReport(line: Substring(line)) == expected, "\(line.debugDescription)")
            if expected != nil { accepted += 1 }
        }
        #expect(accepted > 3000 && accepted < lines.count, "valid and invalid lines both tried (\(accepted) of \(lines.count))")
    }

    /// The report's deadline is written as `%.3f` would, without Foundation's formatter.
    @Test func deadlinesAreWrittenToTheMillisecondAsPrintfWould() throws {
        let r = report(1, next: 1_771_315_205.5, http: ["b": 2, "a": 1, "z": 0], consumed: ["y": 2, "x": 1])
        #expect(r.line == "v1\t1\t1\t1771315205.500\ta:1,b:2\tx=1\ty=2\n")
        var g = SystemRandomNumberGenerator()
        var values: [Double] = [0, 0.001, 0.0004, 0.0996, 1, 59.999, 1_771_315_205, -2.25, -0.0004, 9_999_999_999.999]
        for _ in 0..<2000 {
            let millis = Int64.random(in: 0...4_102_444_800_000, using: &g)
            values.append(Double(millis) / 1000 + Double.random(in: -0.0004...0.0004, using: &g))
        }
        for v in values {
            let line = try #require(report(1, next: v).line.split(separator: "\t").dropFirst(3).first)
            #expect(String(line) == String(format: "%.3f", v), "\(v)")
        }
    }

    @Test func quietOnlyWhenEveryParticipantReportedTookInItsNotificationsAndWaitsForNothingRunning() {
        var s = VirtualScheduler()
        s.spawned(pid: 1, role: "app")
        s.spawned(pid: 2, role: "server")
        var gens = ["n": UInt64(5), "system.wake.1": 2]
        func blockers(stopped: Set<Int32> = [], services: Set<String> = [], calls: [String] = []) -> [String] {
            s.blockers(now: 100, generation: { gens[$0] ?? 0 }, stopped: stopped, stoppedServices: services, runningCalls: calls)
        }
        #expect(blockers() == ["app (pid 1) is starting", "server (pid 2) is starting"])
        s.received(report(1, consumed: ["n": 4, "system.wake.1": 2]))
        s.received(report(2, next: 150))
        #expect(blockers() == ["app has not taken in n"])
        s.received(report(1, seq: 2, http: ["server": 1], consumed: ["n": 5, "system.wake.1": 2]))
        #expect(blockers() == ["app waits for server"])
        #expect(blockers(stopped: [2], services: ["server"]).isEmpty, "a request to a stopped server waits for its deadline")
        s.received(report(1, seq: 3, consumed: ["n": 5, "system.wake.1": 2]))
        #expect(blockers().isEmpty)
        #expect(blockers(calls: ["monitor"]) == ["monitor call running"])
        // An older report never replaces a newer one.
        s.received(report(1, seq: 2, http: ["server": 1], consumed: ["n": 5]))
        #expect(blockers().isEmpty)
        gens["n"] = 6
        #expect(blockers() == ["app has not taken in n"])
        #expect(blockers(stopped: [1]).isEmpty, "a stopped participant holds nothing")
    }

    /// A long-lived role signalled to die holds time until it is reaped: its exit is an event of
    /// this instant, recorded before anything else happens — even when every participant is quiet.
    @Test func aRoleThatIsExitingHoldsTimeFirst() {
        var s = VirtualScheduler()
        s.spawned(pid: 1, role: "app")
        s.received(report(1, consumed: [:]))
        #expect(s.blockers(now: 100, generation: { _ in 0 }, stopped: [], stoppedServices: [], runningCalls: []).isEmpty)
        let b = s.blockers(now: 100, generation: { _ in 0 }, stopped: [], stoppedServices: [], runningCalls: ["monitor"], exiting: ["host-app"])
        #expect(b == ["host-app is exiting", "monitor call running"])
    }

    @Test func deadlinesWakesAndExits() {
        var s = VirtualScheduler()
        s.spawned(pid: 1, role: "app")
        s.spawned(pid: 2, role: "server")
        s.received(report(1, next: 105, consumed: ["system.wake.1": 0]))
        s.received(report(2, next: 300, consumed: ["system.wake.2": 0]))
        #expect(s.nextDeadline(after: 100, stopped: []) == 105)
        #expect(s.nextDeadline(after: 100, stopped: [1]) == 300)
        // At 105 the app is due: woken once, then not again until it took that in.
        #expect(s.toWake(now: 105, generation: { _ in 0 }, stopped: []) == [1])
        #expect(s.toWake(now: 105, generation: { $0 == "system.wake.1" ? 1 : 0 }, stopped: []).isEmpty)
        #expect(s.blockers(now: 105, generation: { _ in 0 }, stopped: [], stoppedServices: [], runningCalls: []) == ["app has a timer due"])
        s.exited(pid: 1)
        s.received(report(1, seq: 9))
        #expect(s.strayReports == 1)
        #expect(s.nextDeadline(after: 100, stopped: []) == 300)
    }
}
