@testable import AppGroup
@testable import DeviceProtocol
@testable import FaultInjection
import Foundation
import Synchronization
import HarnessKit
import History
import PropertyBased
import SystemRegistry
import Testing

/// Every format that crosses a process boundary, fuzzed within a bound (`Fuzz.iterations` per
/// property): round trips from generated values, and mutated corpus files and random bytes that
/// must come out as a value or an error — never a crash, a hang, or a value that breaks a bound.
@Suite(.timeLimit(.minutes(3))) struct FuzzTests {
    // MARK: Plist codec (PROTOCOL.md §3)

    /// Property-list values, nested up to `depth`, with every string hazard the XML has.
    static func plistValue(_ rng: inout any SeededRandomNumberGenerator, depth: Int) -> PropertyListValue {
        func string() -> String {
            let pool: [Unicode.Scalar] = ["a", "Z", "0", " ", "\t", "\n", "\r", "<", ">", "&", ";", "#", "\"", "'", "\u{0}", "\u{1}",
                "\u{1B}", "\u{7F}", "é", "€", "\u{FEFF}", "😀", "\u{10FFFF}"]
            var s = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...12, using: &rng) { s.append(pool.randomElement(using: &rng)!) }
            return String(s)
        }
        let kinds = depth > 0 ? 8 : 6
        switch Int.random(in: 0..<kinds, using: &rng) {
        case 0: return .string(string())
        case 1: return .integer([Int64.min, Int64.max, 0, -1, Int64.random(in: .min ... .max, using: &rng)].randomElement(using: &rng)!)
        case 2:
            let specials: [Double] = [0, -0.0, 1e-308, 5e-324, 1.7976931348623157e308, .infinity, -.infinity, 0.1, -123.456]
            return .real(Bool.random(using: &rng) ? specials.randomElement(using: &rng)! : Double.random(in: -1e12...1e12, using: &rng))
        case 3: return .bool(Bool.random(using: &rng))
        case 4: return .data(Data((0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        case 5: return .date(Date(timeIntervalSince1970: Double(Int64.random(in: 0...253_402_300_799, using: &rng))))
        case 6: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in plistValue(&rng, depth: depth - 1) })
        default:
            var d: [String: PropertyListValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &rng) { d[string()] = plistValue(&rng, depth: depth - 1) }
            return .dictionary(d)
        }
    }

    static let suites = Generator<[String: PropertyListValue], Shrink.None<[String: PropertyListValue]>>(run: { rng in
        var d: [String: PropertyListValue] = [:]
        for i in 0..<Int.random(in: 0...6, using: &rng) { d["k\(i)\(i % 2 == 0 ? "&<" : "")"] = plistValue(&rng, depth: 3) }
        return d
    })

    @Test func plistRoundTripsEveryValue() async {
        let tally = Fuzz.Tally("plist round trip")
        await propertyCheck(count: Fuzz.iterations, input: Self.suites) { suite in
            tally.tick()
            let bytes = PropertyListCodec.encode(suite)
            #expect((try? PropertyListCodec.decodeDictionary(bytes)) == suite)
        }
        tally.report()
    }

    @Test func plistMutatedCorpusIsAValueOrAnError() async {
        let tally = Fuzz.Tally("plist mutated corpus")
        await propertyCheck(count: Fuzz.iterations, input: Fuzz.mutations(of: "plist")) { bytes in
            tally.tick()
            guard let suite = try? SharedDefaults.decodeSuite(bytes).values else { return }
            // What decodes is a suite a write accepts, and it is stable through our encoding.
            let again = PropertyListCodec.encode(suite)
            #expect(again.count <= SharedDefaults.maxSuiteBytes || bytes.count > SharedDefaults.maxSuiteBytes / 16)
            let back = try PropertyListCodec.decodeDictionary(again)
            #expect(PropertyListCodec.encode(back) == again)
        }
        tally.report()
    }

    @Test func plistRandomBytesAreAValueOrAnError() async {
        let tally = Fuzz.Tally("plist random bytes")
        await propertyCheck(count: Fuzz.iterations, input: Fuzz.bytes(upTo: 200)) { bytes in
            tally.tick()
            _ = try? PropertyListCodec.decodeDictionary(bytes)
        }
        tally.report()
    }

    // MARK: Notify records (PROTOCOL.md §4.2)

    @Test func notifyRecordsRoundTripAndHaveOneSpelling() async {
        let tally = Fuzz.Tally("notify records")
        await propertyCheck(count: Fuzz.iterations, input: Gen<UInt64>.value(in: 0...UInt64.max), Gen<UInt64>.value(in: 0...UInt64.max)) { g, s in
            tally.tick()
            let r = NotifyRecord(generation: g, state: s)
            #expect(NotifyRecord.decode(r.encoded) == r)
            #expect(r.encoded.count <= DarwinNotificationCenter.maxFileBytes)
            #expect(NotifyRecord.generation(after: g) != 0)
        }
        await propertyCheck(count: Fuzz.iterations, input: Fuzz.mutations(of: "notify")) { bytes in
            tally.tick()
            // Canonical: whatever decodes encodes back to exactly the same bytes.
            if let r = NotifyRecord.decode(bytes) { #expect(r.encoded == bytes) }
        }
        await propertyCheck(count: Fuzz.iterations, input: Fuzz.bytes(upTo: 80)) { bytes in
            tally.tick()
            if let r = NotifyRecord.decode(bytes) { #expect(r.encoded == bytes) }
        }
        tally.report()
    }

    // MARK: The clock file (PROTOCOL.md §2)

    static let interestingDoubles: [Double] = [
        0, -0.0, 1, -1, 0.001, 0.0009, 100_000, 100_001, 1e300, -1e300, .infinity, -.infinity, .nan, 253_402_300_799, 253_402_300_800,
        1_771_315_200, 5e-324, 9.2e18,
    ]

    @Test func clockConfigurationsAreBoundedOrRefused() async {
        let tally = Fuzz.Tally("clock file")
        let doubles = Gen.int(in: 0...(Self.interestingDoubles.count - 1)).map { Self.interestingDoubles[$0] }
        let anchors = Gen.int(in: 0...3).map { [UInt64(0), DeviceClock.monotonicNanos(), UInt64(Int64.max), UInt64.max][$0] }
        await propertyCheck(count: Fuzz.iterations, input: doubles, doubles, doubles, anchors, Gen.bool) { epoch, offset, rate, anchor, stepped in
            tally.tick()
            var c = DeviceClock.Configuration(epochUnixSeconds: epoch, anchorMonotonicNanos: anchor, rate: rate, offsetSeconds: offset, timeZone: "UTC")
            if stepped { c.mode = DeviceClock.Configuration.steppedMode }
            guard (try? c.validate()) != nil else { return }
            // A clock that validates gives a device time inside the bounds.
            let elapsed = stepped ? 0 : Double(Int64(bitPattern: DeviceClock.monotonicNanos() &- c.anchorMonotonicNanos)) / 1e9 * c.rate
            let now = c.epochUnixSeconds + c.offsetSeconds + elapsed
            #expect(now.isFinite && now >= 0 && now <= DeviceClock.Configuration.unixSecondsRange.upperBound + 1)
        }
        await propertyCheck(count: Fuzz.iterations, input: Fuzz.mutations(of: "clock")) { bytes in
            tally.tick()
            guard let c = try? JSONDecoder().decode(DeviceClock.Configuration.self, from: Data(bytes)) else { return }
            _ = try? c.validate()
        }
        tally.report()
    }

    /// The clock file's fast reader says what `JSONDecoder` says, or nothing (then the decoder
    /// answers): on mutated corpus files, and on every file the writer makes.
    @Test func clockFastReaderAgreesWithJSONDecoder() async {
        let tally = Fuzz.Tally("clock fast reader vs JSONDecoder")
        let fastHits = Atomic<Int>(0)
        await propertyCheck(count: Fuzz.iterations, input: Fuzz.mutations(of: "clock")) { bytes in
            tally.tick()
            guard let fast = DeviceClock.Configuration.decodePlain(bytes) else { return }
            #expect(fast == (try? JSONDecoder().decode(DeviceClock.Configuration.self, from: Data(bytes))), "\(String(decoding: bytes, as: UTF8.self))")
        }
        let doubles = Gen.int(in: 0...(Self.interestingDoubles.count - 1)).map { Self.interestingDoubles[$0] }
        let zones = Gen.int(in: 0...3).map { ["UTC", "Europe/Berlin", "America/Argentina/Buenos_Aires", "Etc/GMT+5"][$0] }
        let iterations = Fuzz.iterations
        await propertyCheck(count: iterations, input: Gen.double(in: 0...2e9), doubles, Gen.double(in: 0...100_000), zones, Gen.bool) { epoch, offset, rate, zone, stepped in
            tally.tick()
            var c = DeviceClock.Configuration(epochUnixSeconds: epoch, anchorMonotonicNanos: UInt64(epoch * 1000), rate: rate, offsetSeconds: offset, timeZone: zone)
            if stepped { c.mode = DeviceClock.Configuration.steppedMode }
            guard let bytes = try? c.encoded() else { return }  // a non-finite number cannot be written
            #expect((try? JSONDecoder().decode(DeviceClock.Configuration.self, from: Data(bytes))) == c, "\(String(decoding: bytes, as: UTF8.self))")
            #expect((try? DeviceClock.Configuration.decode(bytes)) == c)
            if DeviceClock.Configuration.decodePlain(bytes) == c { fastHits.add(1, ordering: .relaxed) }
        }
        // Forms at the edge of the plain one: each decodes exactly as JSONDecoder decodes it.
        let base = #""epochUnixSeconds":1771315200,"offsetSeconds":0,"rate":0,"anchorMonotonicNanos":0,"version":1"#
        for json in [
            #"{"# + base + #","timeZone":"UTC","timeZone":"Europe/Berlin"}"#,  // a repeated key: the first wins
            #"{"# + base + #","rate":5,"timeZone":"UTC"}"#,
            #"{"# + base + #","timeZone":"Europe\/Berlin"}"#,  // an escape
            #"{"# + base + #","timeZone":"UTC","mode":null}"#,
            #"{"# + base + #","timeZone":"UTC","extra":1}"#,
            #"{"# + base + #","timeZone":"UTC","mode":"stepped"} "#,
            #"{"# + base.replacingOccurrences(of: #""version":1"#, with: #""version":1.0"#) + #","timeZone":"UTC"}"#,
            #"{"# + base.replacingOccurrences(of: #""rate":0"#, with: #""rate":00"#) + #","timeZone":"UTC"}"#,
            #"{"# + base.replacingOccurrences(of: #""rate":0"#, with: #""rate":-0.5e1"#) + #","timeZone":"UTC"}"#,
            #"{"# + base + #","timeZone":"UTC"}x"#,
        ] {
            let bytes = Array(json.utf8)
            #expect((try? DeviceClock.Configuration.decode(bytes)) == (try? JSONDecoder().decode(DeviceClock.Configuration.self, from: Data(bytes))), "\(json)")
        }
        // What the harness writes (plain numbers, a plain zone) takes the fast path.
        #expect(fastHits.load(ordering: .relaxed) >= iterations / 2)
        let stepped = DeviceClock.Configuration.stepped(at: 1_771_315_200.125, timeZone: "Europe/Berlin")
        #expect(DeviceClock.Configuration.decodePlain(try! stepped.encoded()) == stepped)
        tally.report()
    }

    /// Through the real reader: a mutated clock file in a device root is a clock or real time.
    @Test func mutatedClockFilesReadAsAClockOrRealTime() async throws {
        let path = NSTemporaryDirectory() + "sth-fuzz-clock-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let root = try DeviceRoot(path: path)
        let tally = Fuzz.Tally("clock file through DeviceClock")
        await propertyCheck(count: max(1, Fuzz.iterations / 4), input: Fuzz.mutations(of: "clock")) { bytes in
            tally.tick()
            try root.directory.writeAtomically(DeviceClock.fileName, bytes: bytes, fsync: false)
            let now = DeviceClock(deviceRoot: root).nowUnixSeconds()
            #expect(now.isFinite && now >= 0)
        }
        tally.report()
    }

    // MARK: Heartbeat records (PROTOCOL.md §5)

    @Test func heartbeatRecordsAreBoundedAndNeverBreakTheClassifier() async {
        let tally = Fuzz.Tally("heartbeat records")
        await propertyCheck(count: Fuzz.iterations, input: Fuzz.mutations(of: "heartbeat")) { bytes in
            tally.tick()
            guard let r = try? HeartbeatRecord.decode(bytes) else { return }
            var c = HeartbeatClassifier(detector: .phiAccrual(threshold: 8))
            _ = c.observe(r, wallTime: r.wallTime, monotonicTime: r.monotonicTime)
            for t in c.evaluate(wallTime: r.wallTime + 10, monotonicTime: r.monotonicTime + 10) { #expect(!(t.phi?.isNaN ?? false)) }
        }
        // Sequences of valid beats at any times, restarts included, through both detectors.
        let beats = zip(Gen.int(in: 0...3), Gen.double(in: 0...1e6), Gen.double(in: 0.001...86_400)).array(of: 1...30)
        await propertyCheck(count: Fuzz.iterations, input: beats, Gen.bool) { beats, phi in
            tally.tick()
            var c = HeartbeatClassifier(detector: phi ? .phiAccrual(threshold: 8) : .fixed(thresholdSeconds: 300))
            for (i, (launch, t, interval)) in beats.enumerated() {
                let r = HeartbeatRecord(
                    writer: "w", pid: 1, launchId: "L\(launch)", sequence: UInt64(i), wallTime: t, monotonicTime: t, intervalSeconds: interval)
                #expect((try? r.validate()) != nil)
                for tr in c.observe(r, wallTime: t, monotonicTime: t) + c.evaluate(wallTime: t + interval * 3, monotonicTime: t + interval * 3) {
                    #expect(!(tr.phi?.isNaN ?? false))
                    #expect(tr.ageSeconds.isFinite)
                }
            }
        }
        tally.report()
    }

    // MARK: Scenario YAML

    /// Line-level edits of the corpus scenarios (YAML is about lines), then byte-level ones.
    static let scenarios = zip(
        Gen.int(in: 0...(Fuzz.corpus("scenario").count - 1)),
        Gen<UInt32>.value(in: 0...UInt32.max).array(of: 0...4),
        Gen<UInt32>.value(in: 0...UInt32.max).array(of: 0...3)
    ).map { index, lineOps, byteOps -> String in
        var lines = String(decoding: Fuzz.corpus("scenario")[index], as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let numbers = ["0", "-1", "1e309", "100001", "0.0001", "\"600\"", "[5, 1]", "[]", "{}", "~", "99999999999999999999", "366d", "1h1h"]
        for op in lineOps where !lines.isEmpty {
            let at = Int(op >> 8) % lines.count
            switch op % 4 {
            case 0: lines.remove(at: at)
            case 1: lines.insert(lines[at], at: at)
            case 2:
                // Replace the line's value with an interesting one.
                if let colon = lines[at].firstIndex(of: ":") {
                    lines[at] = String(lines[at][...colon]) + " " + numbers[Int(op >> 24) % numbers.count]
                }
            default: lines[at] = " " + lines[at]
            }
        }
        return String(decoding: Fuzz.mutate(Array(lines.joined(separator: "\n").utf8), byteOps), as: UTF8.self)
    }

    @Test func scenarioYAMLParsesOrSaysWhereInOneLine() async {
        let tally = Fuzz.Tally("scenario YAML")
        await propertyCheck(count: Fuzz.iterations, input: Self.scenarios) { yaml in
            tally.tick()
            do {
                let s = try ScenarioParser.parse(yaml: yaml, file: "fuzz.yaml", systems: SystemRegistry.catalog)
                #expect(ScenarioParser.rateRange.contains(s.clock.rate))
                #expect(s.durationSeconds > 0)
                if s.durationSeconds <= 6 * 3600 { _ = ScenarioPlan.make(scenario: s, seed: 1) }
            } catch let error as ScenarioError {
                let text = error.description
                #expect(text.hasPrefix("fuzz.yaml"), "\(text)")
                #expect(!text.contains("\n"), "\(text)")
            } catch {
                Issue.record("not a ScenarioError: \(error)")
            }
        }
        tally.report()
    }

    // MARK: History lines (HISTORY.md §8)

    static let events = Generator<HistoryEvent, Shrink.None<HistoryEvent>>(run: { rng in
        let pool: [Unicode.Scalar] = ["a", "\"", "\\", "\n", "\u{0}", "\u{1F}", "é", "😀", "/", " ", "{", "}"]
        func s(_ n: Int) -> String {
            var v = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...n, using: &rng) { v.append(pool.randomElement(using: &rng)!) }
            return String(v)
        }
        var fields: [String: String] = [:]
        for _ in 0..<Int.random(in: 0...5, using: &rng) { fields[s(6)] = s(20) }
        if Bool.random(using: &rng) { fields["t"] = "shadowed" }
        return HistoryEvent(
            mono: Int64.random(in: .min ... .max, using: &rng), t: Double(Int64.random(in: 0...253_402_300_799, using: &rng)) / 4,
            process: s(8), pid: Int32.random(in: .min ... .max, using: &rng), event: s(10), fields: fields)
    })

    @Test func historyLinesRoundTripAndGarbageIsSkipped() async {
        let tally = Fuzz.Tally("history lines")
        await propertyCheck(count: Fuzz.iterations, input: Self.events) { e in
            tally.tick()
            let parsed = HistoryEvent.parse(jsonl: Data((e.jsonLine() + "\n").utf8))
            #expect(parsed.events == [e])
            #expect(parsed.badLines.isEmpty)
        }
        await propertyCheck(count: Fuzz.iterations, input: Fuzz.bytes(upTo: 300)) { bytes in
            tally.tick()
            let parsed = HistoryEvent.parse(jsonl: Data(bytes))
            #expect(parsed.events.count + parsed.badLines.count <= bytes.count + 1)
        }
        tally.report()
    }

    /// Mutated real histories through the whole judgement (the core's and FocusPledge's rules):
    /// a verdict or "undecided", never a crash.
    @Test func mutatedHistoriesAreJudgedNeverCrash() async throws {
        let pack = try #require(SystemRegistry.catalog.pack("focuspledge"))
        let tally = Fuzz.Tally("history judged")
        let histories = Fuzz.corpus("history").map { HistoryEvent.parse(jsonl: Data($0)).events }
        // Line-level edits: drop, duplicate, swap lines, change a field — what a torn or hostile
        // trace does to a checker — plus byte edits of the whole file.
        let edits = zip(
            Gen.int(in: 0...(histories.count - 1)), Gen<UInt32>.value(in: 0...UInt32.max).array(of: 0...12),
            Gen<UInt32>.value(in: 0...UInt32.max).array(of: 0...2))
        await propertyCheck(count: max(1, Fuzz.iterations / 8), input: edits) { index, ops, byteOps in
            tally.tick()
            var events = histories[index]
            for op in ops where !events.isEmpty {
                let at = Int(op >> 8) % events.count
                switch op % 5 {
                case 0: events.remove(at: at)
                case 1: events.insert(events[at], at: at)
                case 2: events.swapAt(at, Int(op >> 20) % events.count)
                case 3:
                    if let key = events[at].fields.keys.sorted().first {
                        events[at].fields[key] = ["", "-1", "x", "999999999999999999999", "nan", "s-1"][Int(op >> 24) % 6]
                    }
                default: events[at].mono = events[at].mono &+ Int64(Int32(truncatingIfNeeded: op))
                }
            }
            if !byteOps.isEmpty {
                let text = Array(events.map { $0.jsonLine() }.joined(separator: "\n").utf8)
                events = HistoryEvent.parse(jsonl: Data(Fuzz.mutate(text, byteOps))).events
            }
            let report = RunJudgement.judge(pack, events)
            #expect(report.decided || report.undecidedReason != nil)
        }
        tally.report()
    }
}
