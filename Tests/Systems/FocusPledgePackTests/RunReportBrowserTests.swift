import Foundation
import History
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// report.html of a real run with a violation, opened in headless Chromium (Debian's `chromium`;
/// scripts/test installs it): the page loads without a console message, its script draws the
/// timeline, the violation marker and every process lane are in the DOM, and the screenshot is
/// not blank. Skipped, saying why, only when scripts/test found no chromium package to install
/// (STH_CHROMIUM_UNAVAILABLE); a missing browser otherwise fails.
@Suite(.serialized, .timeLimit(.minutes(4))) struct RunReportBrowserTests {
    /// FocusPledge as written, with the nemesis and the OS's callback faults: it breaks its
    /// promises within minutes of device time (Sources/Systems/FocusPledge/README.md).
    static let scenario = """
        name: report-browser
        system: focuspledge
        clock: { mode: virtual, rate: 900, start: "2026-02-17T08:00:00Z", timeZone: "Europe/Berlin" }
        duration: 2h
        settle: 30m
        workload:
          blockedApps: [com.social.feed, com.video.shorts]
          sessions: { durationMinutes: [15, 30], gapMinutes: [1, 5] }
          violations: { probability: 0.7, kinds: [open_blocked_app, press_shield_button], maxPerSession: 2 }
          stopSessionProbability: 0.2
        os:
          faults:
            - { kind: drop, callbacks: [shieldAction], probability: 0.2 }
            - { kind: duplicate, callbacks: [intervalDidEnd], probability: 0.3 }
            - { kind: delay, callbacks: [intervalDidEnd], delay: [30s, 5m], probability: 0.3 }
        nemesis:
          intervalMillis: [30, 90]
          actions: { kill: 0.5, term: 0.1, stop: 0.4 }
          stopMillis: [20, 250]
          restartDelayMillis: [10, 300]
        server: { staleAfterMinutes: 10 }
        """
    static let seed = 1

    static var chromium: String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") + ["/usr/bin"] {
            let p = "\(dir)/chromium"
            if access(p, X_OK) == 0 { return p }
        }
        return nil
    }

    /// Runs `executable` with its stdout and stderr in files; bounded.
    func run(_ executable: String, _ args: [String], in dir: String, name: String) throws -> (status: ChildProcess.ExitStatus?, out: String, err: String) {
        let outPath = dir + "/\(name).out", errPath = dir + "/\(name).err"
        let outFd = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644), errFd = open(errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(outFd); close(errFd) }
        let p = try ChildProcess.spawn(executable, args, captureStdout: false, stdoutTo: outFd, stderrTo: errFd)
        let status = p.wait(timeout: .seconds(120)) ?? p.killAndReap()
        return (status, (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "", (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }

    @Test func aReportWithAViolationLoadsAndDrawsInChromium() throws {
        guard let chromium = Self.chromium else {
            if let why = ProcessInfo.processInfo.environment["STH_CHROMIUM_UNAVAILABLE"] {
                print("SKIPPED RunReportBrowserTests: \(why)")
                return
            }
            Issue.record("chromium is not installed: scripts/test installs it (apt-get install chromium); the report's browser test cannot run")
            return
        }
        let dir = NSTemporaryDirectory() + "sth-report-browser-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { if ProcessInfo.processInfo.environment["STH_KEEP_REPORT_TEST"] == nil { try? FileManager.default.removeItem(atPath: dir) } }
        try Self.scenario.write(toFile: dir + "/report-browser.yaml", atomically: true, encoding: .utf8)

        // A real run; `harness run` says where its report is.
        let h = try run(
            try Executables.path(of: "harness"), ["run", dir + "/report-browser.yaml", "--variant", "as-written", "--seed", String(Self.seed), "--out", dir + "/out"],
            in: dir, name: "harness")
        #expect(h.status == .exited(1), "a violation (exit 1): \(String(describing: h.status))\n\(h.err.suffix(2000))")
        let printed = try #require(h.err.split(separator: "\n").first { $0.contains("(report: ") }, "the result line names report.html")
        let page = String(try #require(printed.split(separator: "(report: ").last?.dropLast()))
        #expect(page.hasSuffix("/report.html"))
        let runDir = (page as NSString).deletingLastPathComponent
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: runDir + "/report.json"))) as? [String: Any])
        let violations = try #require(report["violations"] as? [[String: Any]])
        #expect(!violations.isEmpty, "the run violated an invariant")

        // Every process of the history (and every one the harness spawned) must have its lane.
        let events = HistoryEvent.parse(jsonl: try Data(contentsOf: URL(fileURLWithPath: runDir + "/history.jsonl"))).events
        let processes = Set(events.map(\.process)).union(events.filter { $0.event == "spawn" }.compactMap { $0["target"] })
        #expect(processes.count >= 4)

        // The DOM after the page's script ran, and every console message it printed.
        let profile = dir + "/chromium-profile"
        let common = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0"]
        let dom = try run(chromium, common + ["--dump-dom", "file://" + page], in: dir, name: "dump-dom")
        #expect(dom.status == .exited(0), "chromium --dump-dom: \(String(describing: dom.status))\n\(dom.err.suffix(2000))")
        let console = dom.err.split(separator: "\n").filter { $0.contains(":CONSOLE") || $0.contains("Uncaught") }
        #expect(console.isEmpty, "console messages: \(console.joined(separator: "\n"))")
        #expect(dom.out.contains("data-drawn=\""), "the page's script drew the timeline")
        #expect(dom.out.contains("<g id=\"axis\"><line"), "the script drew the time axis")
        #expect(dom.out.contains("class=\"violation-marker\""))
        for i in 1...violations.count { #expect(dom.out.contains("id=\"violation-\(i)\""), "violation \(i) on the timeline") }
        for p in processes.sorted() { #expect(dom.out.contains("data-process=\"\(p)\""), "lane \(p)") }

        // "show on the timeline" (through the page's own #show-violation-N link): the window
        // narrows to the violation's lines and its marker and cited lines are highlighted.
        let shown = try run(chromium, common + ["--dump-dom", "file://" + page + "#show-violation-1"], in: dir, name: "dump-dom-show")
        #expect(shown.status == .exited(0))
        #expect(shown.out.contains("class=\"violation-marker focus\" id=\"violation-1\""), "violation 1 highlighted")
        #expect(shown.out.contains(" v1 focus\""), "its cited lines highlighted")
        func window(_ dom: String) -> String? { dom.components(separatedBy: "<span id=\"window\">").dropFirst().first?.components(separatedBy: "<").first }
        let whole = try #require(window(dom.out), "the window is shown")
        #expect(window(shown.out) != whole, "the window moved off the whole run (\(whole))")

        // The screenshot: many colours, a real share of non-white pixels, and the violation's red.
        let shot = dir + "/report.png"
        let s = try run(chromium, common + ["--screenshot=" + shot, "--window-size=1500,1100", "--hide-scrollbars", "file://" + page], in: dir, name: "screenshot")
        #expect(s.status == .exited(0), "chromium --screenshot: \(String(describing: s.status))")
        let stats = try PNGStats.of(shot, in: dir)
        #expect(stats.colours >= 12, "distinct colours: \(stats.colours)")
        #expect(stats.nonWhiteShare > 0.05, "share of non-white pixels: \(stats.nonWhiteShare)")
        #expect(stats.hasViolationRed, "the VIOLATION badge's red (#c62828) is on screen")
        if let keep = ProcessInfo.processInfo.environment["STH_KEEP_REPORT_TEST"] { print("report test files kept in \(dir) (\(keep))") }
    }
}

/// What a screenshot shows, counted by Python's standard library (zlib + PNG's row filters): no
/// image library in the package for one test.
enum PNGStats {
    struct Stats {
        var colours: Int
        var nonWhiteShare: Double
        var hasViolationRed: Bool
    }

    static let script = #"""
        import sys, zlib, struct
        data = open(sys.argv[1], "rb").read()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
        pos, idat, w, h, ctype = 8, b"", 0, 0, 0
        while pos < len(data):
            n, kind = struct.unpack(">I4s", data[pos:pos + 8]); body = data[pos + 8:pos + 8 + n]; pos += 12 + n
            if kind == b"IHDR": w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            elif kind == b"IDAT": idat += body
        bpp = {2: 3, 6: 4}[ctype]
        raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
        for y in range(h):
            f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0; b = prev[i]; c = prev[i - bpp] if i >= bpp else 0
                if f == 1: line[i] = (line[i] + a) & 255
                elif f == 2: line[i] = (line[i] + b) & 255
                elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
                elif f == 4:
                    p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[i] = (line[i] + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 255
            rows.append(bytes(line)); prev = line
        colours, nonwhite, red = set(), 0, False
        for line in rows:
            for x in range(0, stride, bpp):
                px = line[x:x + 3]; colours.add(px)
                if px != b"\xff\xff\xff": nonwhite += 1
                if px == b"\xc6\x28\x28": red = True
        print(len(colours), nonwhite / (w * h), int(red))
        """#

    static func of(_ png: String, in dir: String) throws -> Stats {
        let py = dir + "/pngstats.py"
        try script.write(toFile: py, atomically: true, encoding: .utf8)
        let p = try ChildProcess.spawn("/usr/bin/env", ["python3", py, png], captureStdout: true, stderrTo: -1)
        let line = p.readLine(timeout: .seconds(120)) ?? ""
        _ = p.wait(timeout: .seconds(10)) ?? p.killAndReap()
        let parts = line.split(separator: " ")
        guard parts.count == 3, let c = Int(parts[0]), let share = Double(parts[1]) else {
            throw PNGError(description: "cannot read the screenshot \(png): python3 printed \(String(reflecting: line))")
        }
        return Stats(colours: c, nonWhiteShare: share, hasViolationRed: parts[2] == "1")
    }

    struct PNGError: Error, CustomStringConvertible { var description: String }
}
