import AppGroup
import Foundation
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Random hostile values into every option and argument of every verb, read from the harness's
/// own description of itself (`--experimental-dump-help`, so a new verb or option is fuzzed the
/// day it lands). Each invocation is the real `harness`, and must:
/// - never trap or die by a signal (a float→int conversion of a user's `1e19` did);
/// - exit 0, 1 or 2;
/// - on exit 2 print exactly one line on stderr, of at most a few hundred bytes;
/// - change no file that existed before it, outside the outputs the verb owns (a run directory's
///   `report.html`/`shrunk.yaml`, the fixture device root, an output option's path that did not
///   exist), and create nothing outside them, `./runs` and the directories its output options
///   (`--out`, `--junit`, `--index`, `--runs`, `--device-root`) name.
///
/// Deterministic: `STH_FUZZ_SEED` picks another sequence (the failing one is printed with its
/// seed and command line to rerun it by hand).
@Suite(.serialized, .timeLimit(.minutes(6))) struct OptionFuzzTests {
    /// Verbs left out, and why: not a user's input surface, or a valid value runs for minutes.
    static let skipped: [String: String] = [
        "help": "prints help for whatever it is given",
        "bench-pong": "the notify benchmark's other process, spawned by `bench notify`",
        "explore-point": "one crash point of an exploration, spawned by `explore` with values it made",
        "trial": "one rerun of `why` (and of `run`'s proven causes), spawned with a scenario file it wrote",
        "clean": "removes stale device roots of every harness on the machine, including other tests'",
        "bench": "benchmarks: a valid iteration count or workload runs for minutes by design",
        "watch": "a live feed: a valid --for runs that long by design (its bad inputs are BadInputTests rows)",
    ]

    /// Positional arguments that make each verb get as far as its options (a scenario, a run
    /// directory, a device root): `$D` the fixture directory, `$O` this invocation's output, `$C` this checkout.
    static let templates: [String: [String]] = [
        "run": ["$D/s.yaml", "--variant", "hardened", "--out", "$O"],
        "init": ["$O/pkg", "--path", "$C"],
        "explore": ["$D/s.yaml", "--variant", "hardened", "--max", "2", "--out", "$O"],
        "replay": ["$D/run", "--out", "$O"],
        "shrink": ["$D/run", "--runs", "$O", "--max-runs", "2"],
        "why": ["$D/run", "--runs", "$O", "--max-runs", "2"],
        // --bin-path: never the build (a valid --package-path builds the stand-ins for minutes).
        "coverage": ["$D/s.yaml", "--variant", "hardened", "--bin-path", "$D/nowhere", "--out", "$O"],
        "merge": ["$D/run"],
        "check": ["$D/run"],
        "report": ["$D/run"],
        "plan": ["$D/s.yaml"],
        "normalize": ["$D/run"],
        "systems": [],
        "doctor": [],
        "heartbeats": ["$D/run"],
        "notify post": ["x", "--device-root", "$D/root"],
        "notify wait": ["x", "--device-root", "$D/root", "--timeout", "0.05"],
        "notify state": ["x", "--device-root", "$D/root"],
        "defaults read": ["group.example.rally", "--device-root", "$D/root"],
        "defaults write": ["group.example.rally", "k", "v", "--device-root", "$D/root"],
        "defaults delete": ["group.example.rally", "k", "--device-root", "$D/root"],
    ]

    /// This checkout (`init --path`).
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// What the verbs own: changes under these are theirs to make.
    static func owned(_ d: String) -> [String] { [d + "/root", d + "/run/report.html", d + "/run/shrunk.yaml", d + "/run/why.json", d + "/out"] }

    static func hostile(_ d: String) -> [String] {
        [
            "-1", "0", "-0", "1", "2", "1.5", "1e19", "-1e19", "nan", "inf", "-inf", "99999999999999999999", "0x10", "", " ", "\t",
            "1h", "400d", "-1h", "1/2", "0/0", "3/2", "-1/2", "a,b", ",", "as-writen", "hardened", String(repeating: "x", count: 3000),
            "é", "\u{202E}evil", "\u{1B}[31mred", "\u{7F}", "line\nbreak", "%s%n", "--help", "-v",
            d + "/fifo", d + "/passwd", d + "/s.yaml", d + "/run", d, "/dev/zero", "/dev/full", "/proc/self/environ", d + "/nowhere/deeper",
            d + "/link", "..", "/",
        ]
    }

    struct Verb {
        var path: [String]
        var options: [(name: String, takesValue: Bool)]
        var positionals: Int
    }

    /// Leaf commands and their options, from the harness's own dump.
    static func verbs(_ harness: String) throws -> [Verb] {
        let p = try ChildProcess.spawn(harness, ["--experimental-dump-help"])
        var out: [String] = []
        while let l = p.readLine(timeout: .seconds(30)) { out.append(l) }
        _ = p.wait(timeout: .seconds(30)) ?? p.killAndReap()
        let json = try #require(try JSONSerialization.jsonObject(with: Data(out.joined(separator: "\n").utf8)) as? [String: Any])
        var verbs: [Verb] = []
        func walk(_ c: [String: Any], _ path: [String]) {
            let subs = c["subcommands"] as? [[String: Any]] ?? []
            let name = c["commandName"] as? String ?? "?"
            let here = path + [name]
            if subs.isEmpty {
                var options: [(String, Bool)] = []
                var positionals = 0
                for a in c["arguments"] as? [[String: Any]] ?? [] {
                    let kind = a["kind"] as? String
                    if kind == "positional" { positionals += 1; continue }
                    guard let n = (a["names"] as? [[String: Any]])?.first(where: { $0["kind"] as? String == "long" })?["name"] as? String,
                        n != "help"
                    else { continue }
                    options.append(("--" + n, kind == "option"))
                }
                verbs.append(Verb(path: Array(here.dropFirst()), options: options, positionals: positionals))
            }
            for s in subs { walk(s, here) }
        }
        walk(try #require(json["command"] as? [String: Any]), [])
        return verbs
    }

    /// A seeded SplitMix64: the same seed, the same invocations.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func pick<T>(_ a: [T]) -> T { a[Int(next() % UInt64(a.count))] }
    }

    struct Entry: Equatable {
        var kind: mode_t
        var size: off_t
        var mtime: Int
        var mode: mode_t
    }

    static func snapshot(_ root: String) -> [String: Entry] {
        var out: [String: Entry] = [:]
        func visit(_ path: String) {
            var st = stat()
            guard lstat(path, &st) == 0 else { return }
            out[path] = Entry(kind: st.st_mode & S_IFMT, size: st.st_size, mtime: st.st_mtim.tv_sec * 1_000_000_000 + st.st_mtim.tv_nsec, mode: st.st_mode)
            guard (st.st_mode & S_IFMT) == S_IFDIR else { return }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] { visit(path + "/" + name) }
        }
        visit(root)
        return out
    }

    final class Fixture {
        let path: String
        init(harness: String) throws {
            path = NSTemporaryDirectory() + "sth-option-fuzz-\(getpid())"
            let fm = FileManager.default
            try? fm.removeItem(atPath: path)
            try fm.createDirectory(atPath: path + "/root", withIntermediateDirectories: true)
            try "name: s\nsystem: rally\nclock: { rate: 600 }\nduration: 4m\nrally: { serves: 2, everySeconds: 60 }\n"
                .write(toFile: path + "/s.yaml", atomically: false, encoding: .utf8)
            try "root:x:0:0:root:/root:/bin/bash\n".write(toFile: path + "/passwd", atomically: false, encoding: .utf8)
            mkfifo(path + "/fifo", 0o600)
            symlink(path + "/passwd", path + "/link")
            // One real run to point replay, shrink, check, report, merge and heartbeats at.
            let p = try ChildProcess.spawn(harness, ["run", path + "/s.yaml", "--variant", "hardened", "--out", path + "/made"], captureStdout: false)
            #expect(p.wait(timeout: .seconds(120)) == .exited(0))
            let made = try #require(try fm.contentsOfDirectory(atPath: path + "/made").first)
            try fm.moveItem(atPath: path + "/made/" + made, toPath: path + "/run")
            try fm.removeItem(atPath: path + "/made")
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test func everyOptionOfEveryVerbTakesHostileValuesWithoutTrapHangOrDamage() throws {
        let harness = try Executables.path(of: "harness")
        let seed = ProcessInfo.processInfo.environment["STH_FUZZ_SEED"].flatMap { UInt64($0) } ?? 1
        var random = Random(state: seed)
        let fixture = try Fixture(harness: harness)
        let d = fixture.path
        let values = Self.hostile(d)
        let verbs = try Self.verbs(harness).filter { Self.skipped[$0.path.first ?? ""] == nil && Self.skipped[$0.path.joined(separator: " ")] == nil }
        var invocations = 0
        for verb in verbs {
            let name = verb.path.joined(separator: " ")
            let template = try #require(Self.templates[name], "verb '\(name)' has no template here: add one so its options are fuzzed")
            // Each option three times, each positional three times, then the template as it is.
            var cases: [(what: String, args: [String])] = [("template", template)]
            for option in verb.options {
                for _ in 0..<3 {
                    var args = template
                    if let i = args.firstIndex(of: option.name) { args.removeSubrange(i...(option.takesValue ? i + 1 : i)) }
                    args += option.takesValue ? [option.name, random.pick(values)] : [option.name]
                    cases.append((option.name, args))
                }
            }
            let leading = template.prefix { !$0.hasPrefix("--") }.count
            for i in 0..<min(leading, verb.positionals) {
                for _ in 0..<3 {
                    var args = template
                    args[i] = random.pick(values)
                    cases.append(("argument \(i + 1)", args))
                }
            }
            for (n, c) in cases.enumerated() {
                let out = "\(d)/out/\(name.replacingOccurrences(of: " ", with: "-"))-\(n)"
                let args = verb.path + c.args.map { $0.replacingOccurrences(of: "$D", with: d).replacingOccurrences(of: "$O", with: out).replacingOccurrences(of: "$C", with: Self.checkout) }
                try check(harness: harness, args: args, fixture: d, outputs: Self.owned(d) + Self.outputs(args), seed: seed)
                invocations += 1
            }
        }
        print("option fuzz: \(invocations) invocations of \(verbs.count) verbs, seed \(seed)")
        // The dump was read: the verbs users run are all here (a parse that found none would pass).
        #expect(verbs.count >= Self.templates.count)
    }

    /// The values of options that name an output: the verb may create or replace them.
    static func outputs(_ args: [String]) -> [String] {
        var out: [String] = []
        for (i, a) in args.enumerated() where ["--out", "--junit", "--index", "--runs", "--device-root"].contains(a) && i + 1 < args.count {
            out.append(args[i + 1])
        }
        return out
    }

    func check(harness: String, args: [String], fixture d: String, outputs: [String], seed: UInt64) throws {
        let work = d + "/work"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let before = Self.snapshot(d)
        let errPath = d + "/out/stderr", outPath = d + "/out/stdout"
        try FileManager.default.createDirectory(atPath: d + "/out", withIntermediateDirectories: true)
        let errFd = open(errPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let outFd = open(outPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer {
            close(errFd)
            close(outFd)
        }
        var env = ProcessInfo.processInfo.environment
        env["SCREENTIME_DEVICE_ROOT"] = nil
        let shown = "STH_FUZZ_SEED=\(seed) harness " + args.map { $0.count > 60 ? String($0.prefix(60)) + "…" : $0 }.map { "'\($0)'" }.joined(separator: " ")
        let p = try ChildProcess.spawn(harness, args, environment: env, captureStdout: false, stdoutTo: outFd, stderrTo: errFd, workingDirectory: work)
        guard let status = p.wait(timeout: .seconds(60)) else {
            _ = p.killAndReap()
            Issue.record("hung for 60 s: \(shown)")
            return
        }
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        switch status {
        case .signalled(let s):
            Issue.record("died by signal \(s): \(shown)\n\(stderr.suffix(400))")
        case .exited(let code):
            #expect([0, 1, 2].contains(code), "exit \(code): \(shown)\n\(stderr.suffix(400))")
            if code == 2 {
                let lines = stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
                #expect(lines.count == 1, "exit 2 with \(lines.count) lines on stderr: \(shown)\n\(stderr.prefix(600))")
                #expect((lines.first?.utf8.count ?? 0) <= 600, "a \(lines.first?.utf8.count ?? 0)-byte error line: \(shown)")
            }
        }
        let after = Self.snapshot(d)
        func absolute(_ o: String) -> String { URL(fileURLWithPath: o.hasPrefix("/") ? o : work + "/" + o).standardized.path }
        func under(_ path: String, _ roots: [String]) -> Bool { roots.contains { path == $0 || path.hasPrefix($0 + "/") } }
        // Outputs that did not exist are the verb's; an existing directory named as an output may
        // get new entries, but nothing in it that was there may change; an existing file named as
        // an output is the user's unless the verb owns it (`owned`).
        let named = outputs.map(absolute)
        // A fresh output's missing parents are made for it (`mkdir -p`, as `--out` does).
        let fresh = named.filter { before[$0] == nil }.flatMap { o in
            sequence(first: o) { PathText.directory(of: $0) }.prefix { before[$0] == nil && $0 != "/" && $0 != "." }
        }
        let intoExisting = named.filter { before[$0]?.kind == S_IFDIR }
        let mine = Self.owned(d) + fresh + [d + "/out", work]
        for (path, entry) in before where !under(path, mine) {
            let now = after[path]
            if entry.kind == S_IFDIR {
                // A directory's size and mtime move when an entry is added to it.
                #expect(now?.kind == entry.kind && now?.mode == entry.mode, "\(path) changed: \(shown)")
            } else {
                #expect(now == entry, "\(path) changed: \(shown)")
            }
        }
        for path in after.keys where before[path] == nil && !under(path, mine + intoExisting) {
            Issue.record("\(path) was created: \(shown)")
        }
        // Leftovers of this invocation go, so the next one starts from the same fixture.
        try? FileManager.default.removeItem(atPath: work)
        for o in outputs where o.hasPrefix(d + "/out/") { try? FileManager.default.removeItem(atPath: o) }
    }
}
