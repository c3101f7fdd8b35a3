import Foundation
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Point 4 of the issue "The harness must never lose a run, hang, or judge wrongly": bad inputs
/// exited 1 (the code of a violation) with an NSError dump, 64 with a message that did not say
/// what was wrong, or failed only after a whole run. Every row runs the real `harness` and checks
/// the exit code and that stderr is exactly one line holding the expected words.
/// docs/BAD-INPUTS.md is generated from this table (`STH_UPDATE_DOCS=1 swift test --filter BadInputTests`)
/// and checked against it.
@Suite(.serialized, .timeLimit(.minutes(3))) struct BadInputTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var verb: String
        var arguments: [String]
        var exitCode: Int32
        var words: [String]
        var needs: Need? = nil
        /// Words that must not be printed (a file's contents the user did not mean as a scenario).
        var never: [String] = []
        var testDescription: String { arguments.joined(separator: " ") }
    }

    /// A fixture only some machines can make; where it cannot be made the row is skipped (with the
    /// reason printed) and the document keeps its committed line.
    enum Need: Sendable {
        /// `$D/readonly`: a read-only tmpfs, mounted for the row and unmounted after it.
        case readOnlyMount
    }

    static func row(_ verb: String, _ arguments: [String], _ exitCode: Int32, _ words: String..., needs: Need? = nil, never: [String] = []) -> Row {
        Row(verb: verb, arguments: arguments, exitCode: exitCode, words: words, needs: needs, never: never)
    }

    /// `$D` is a directory of fixtures (see `Fixtures`).
    static let rows: [Row] = [
        // run
        row("run", ["run", "$D/missing.yaml"], 2, "missing.yaml: cannot read scenario file: No such file or directory"),
        row("run", ["run", "$D/unknown-key.yaml"], 2, "unknown-key.yaml:7:1: unknown key 'bogus'"),
        row("run", ["run", "$D/retry.yaml"], 2, "retry.yaml:7:16: user.retry: expected always, never, or a probability between 0 and 1 exclusive (e.g. 0.5), got the string \"sometimes\""),
        row("run", ["run", "$D/s.yaml", "--user-retry", "1"], 2, "--user-retry \"1\": use always, never, or a probability between 0 and 1 exclusive (e.g. 0.5)"),
        row("run", ["run", "$D/rate-500000.yaml"], 2, "clock.rate: must be greater than 0 and at most 100000"),
        row("run", ["run", "$D/rate-tiny.yaml"], 2, "clock.rate: must be at least 0.001"),
        row("run", ["run", "$D/latin1.yaml"], 2, "scenario file is not UTF-8"),
        row("run", ["run", "$D"], 2, "$D: not a regular file (a directory)"),
        row("run", ["run", "$D/fifo"], 2, "$D/fifo: not a regular file (a FIFO)"),
        row("run", ["run", "/dev/zero"], 2, "/dev/zero: not a regular file (a character device)"),
        row("run", ["run", "$D/passwd-link"], 2, "not a scenario", "a single value of", never: ["root:x:0:0", "daemon", "/bin/bash"]),
        row("run", ["run", "$D/token.yaml"], 2, "missing required key 'system'", never: ["sk-live"]),
        row("run", ["run", "$D/long-name.yaml"], 2, "name: \"xxxxxxxx", "…\" (5000 bytes) must be 1...100 characters"),
        row("run", ["run", "$D/feb30.yaml"], 2, "clock.start: \"2026-02-30T08:00:00Z\" is not a date: February 2026 has 28 days"),
        row("run", ["run", "$D/start-1969.yaml"], 2, "clock.start: 1969-12-31T23:00:00Z is before 1970-01-01T00:00:00Z"),
        row("run", ["run", "$D/start-9999.yaml"], 2, "clock.start: 9999-12-31T23:00:00Z + duration 1800s", "ends after 9999-12-31T23:59:59Z", "start earlier"),
        row("run", ["run", "$D/rate-1e400.yaml"], 2, "clock.rate: must be greater than 0 and at most 100000.0, got \"1e400\""),
        row("run", ["run", "$D/reboot-100h.yaml"], 2, "os.reboots: 360000s after clock.start is after the run ends", "it would never happen"),
        row("run", ["run", "$D/start-late.yaml", "--duration", "7000h"], 2, "--duration 25200000s", "ends after 9999-12-31T23:59:59Z"),
        row("run", ["run", "$D/s.yaml", "--variant", "nope"], 2, "unknown variant 'nope'", "as-written, hardened"),
        row("run", ["run", "$D/s.yaml", "--seed", "-1"], 2, "'--seed <seed>'", "use a whole number"),
        row("run", ["run", "$D/s.yaml", "--seed", "1.5"], 2, "'--seed <seed>'", "use a whole number"),
        row("run", ["run", "$D/s.yaml", "--seeds", "5-1"], 2, "the first seed 5 is greater than the last 1; write it as 1-5"),
        row("run", ["run", "$D/s.yaml", "--why-budget", "soon"], 2, "--why-budget \"soon\": use a wall time like 5s or 1m (at most 1h), or 0 (or off) for none"),
        row("run", ["run", "$D/s.yaml", "--why-budget", "2h"], 2, "--why-budget \"2h\": use a wall time like 5s or 1m (at most 1h), or 0 (or off) for none"),
        row("run", ["run", "$D/s.yaml", "--seeds", "1-20000"], 2, "20000 seeds; at most 10000"),
        row("run", ["run", "$D/s.yaml", "--seeds", "x"], 2, "use a range of whole numbers like 1-20"),
        row("run", ["run", "$D/s.yaml", "--duration", "0"], 2, "--duration \"0\"", "more than 0"),
        row("run", ["run", "$D/s.yaml", "--duration", "400d"], 2, "--duration \"400d\"", "90s, 15m"),
        row("run", ["run", "$D/s.yaml", "--duration", "-1h"], 2, "--duration \"-1h\"", "more than 0"),
        row("run", ["run", "$D/s.yaml", "--out", "/proc/x"], 2, "--out /proc/x: cannot create the output directory (mkdir /proc/x"),
        row("run", ["run", "$D/s.yaml", "--out", "$D/file"], 2, "--out $D/file: not a directory"),
        row("run", ["run", "$D/s.yaml", "--out", "$D/fifo"], 2, "--out $D/fifo: not a directory"),
        row("run", ["run", "$D/s.yaml", "--junit", "/proc/x/junit.xml"], 2, "--junit /proc/x/junit.xml: directory /proc/x does not exist"),
        row("run", ["run", "$D/s.yaml", "--junit", "$D"], 2, "--junit $D: is a directory; name a file"),
        row("run", ["run", "$D/s.yaml", "--junit", "$D/fifo"], 2, "--junit $D/fifo: is a FIFO, not a regular file", "never replaces one"),
        row("run", ["run", "$D/s.yaml", "--junit", "$D/sock"], 2, "--junit $D/sock: is a socket, not a regular file"),
        row("run", ["run", "--suite", "$D/suite-bogus.yaml"], 2, "suite-bogus.yaml:3:15: variants: unknown variant 'bogus'; s (focuspledge) has: as-written, hardened"),
        row("run", ["run", "--suite", "$D/suite-budget.yaml"], 2, "suite-budget.yaml:3:13: runs[0].budget: a budget is for a crash-point sample; add explore: each-label-once"),
        row("run", ["run", "--suite", "$D/suite-sample-fixed.yaml"], 2, "explore: $D/fixed.yaml runs at clock.mode: fixed; a crash-point sample needs virtual time"),
        row("run", ["run", "--suite", "$D/suite-sample.yaml", "--crash-points"], 2, "--crash-points is for runs; the suite's crash-point samples (explore:) make their own"),
        row("plan", ["plan", "$D/start-0001.yaml"], 2, "clock.start: 0001-01-01T00:00:00Z is before 1970-01-01T00:00:00Z"),
        row("run", ["run", "$D/s.yaml", "--junit", "$D/passwd"], 2, "--junit $D/passwd exists and is not a JUnit report (no <testsuite>)", "nothing was replaced"),
        row("run", ["run", "$D/s.yaml", "--junit", "$D/filelink"], 2, "--junit $D/filelink: is a symlink; name a regular file"),
        row("run", ["run", "$D/s.yaml", "--variant", "hardened", "--device-root", "$D/link"], 2, "--device-root $D/link is a symlink"),
        row("run", ["run", "$D/s.yaml", "--variant", "hardened", "--device-root", "$D/full"], 2, "is not empty", "fresh device root"),
        row("run", ["run", "$D/s.yaml", "--seeds", "1-2", "--device-root", "$D/fresh"], 2, "takes one run, this is 4"),
        row("run", ["run", "$D/s.yaml", "--variant", "hardened", "--device-root", "$D/readonly/root"], 2,
            "--device-root $D/readonly/root: cannot write in $D/readonly (Read-only file system)", needs: .readOnlyMount),
        row("run", ["run", "$D/s.yaml", "--bogus"], 2, "Unknown option '--bogus'", "harness run --help"),
        row("run", ["run", "$D/s.yaml", "extra"], 2, "Unexpected argument 'extra'"),
        row("run", ["run", "$D/s.yaml", "--failpoint", "host-app:defaults:k=explode"], 2,
            "--failpoint \"host-app:defaults:k=explode\": unknown action 'explode'", "(at character 21)"),
        row("run", ["run", "$D/s.yaml", "--failpoint", "hots-app:post:x=kill"], 2, "unknown process 'hots-app'; crash points are in: host-app"),
        row("run", ["run", "$D/s.yaml", "--failpoint", "host-app:step:x=stop"], 2, "stop takes milliseconds, 0...600000: stop(100)"),
        row("run", ["run", "$D/failpoint.yaml"], 2, "failpoint.yaml:8:26: failpoints: unknown action 'explode'"),
        row("run", ["run", "$D/s.yaml", "--failpoint", "host-app:defaults:group.com.other/k=kill"], 2,
            "\"group.com.other\" is not an App Group of the system (its App Groups: group.com.focuspledge.shared)", "(at character 19)"),
        row("run", ["run", "$D/s.yaml", "--failpoint", "host-app:respond=kill"], 2, "only a shield-action extension answers a shield"),
        row("run", ["run", "$D/s.yaml", "--failpoint", "host-app:http.reply:settlement POST /x=error"], 2, "\"settlement\" is not a server of the system"),
        // explore
        row("explore", ["explore", "$D/missing.yaml"], 2, "missing.yaml: cannot read scenario file"),
        row("explore", ["explore", "$D/s.yaml", "--max", "0"], 2, "--max \"0\": use a whole number of crash points, 1...1000000"),
        row("explore", ["explore", "$D/s.yaml", "--jobs", "0"], 2, "--jobs \"0\": use a whole number of runs at once, 1...64"),
        row("explore", ["explore", "$D/s.yaml", "--jobs", "two"], 2, "--jobs \"two\": use a whole number of runs at once, 1...64"),
        row("explore", ["explore", "$D/s.yaml", "--jobs", "-1"], 2, "--jobs \"-1\": use a whole number of runs at once, 1...64"),
        row("explore", ["explore", "$D/s.yaml", "--shard", "-1/2"], 2, "--shard -1/2"),
        row("explore", ["explore", "$D/s.yaml", "--variant", "nope"], 2, "unknown variant 'nope'"),
        row("explore", ["explore", "$D/fixed.yaml"], 2, "explore needs clock.mode: virtual"),
        row("explore", ["explore", "$D/s.yaml", "--junit", "$D"], 2, "--junit $D: is a directory; name a file"),
        row("explore", ["explore", "$D/s.yaml", "--resume", "$D/nowhere"], 2, "--resume $D/nowhere: $D/nowhere/explore.json: No such file or directory (name the explore-… directory"),
        row("explore", ["explore", "$D/s.yaml", "--resume", "$D/explore-torn"], 2, "--resume $D/explore-torn: $D/explore-torn/explore.json: not an exploration's record"),
        row("explore", ["explore", "$D/s.yaml", "--resume", "$D/explore-other"], 2, "--resume $D/explore-other: that exploration's scenario was other, this one's is s; explore with the same options"),
        row("explore", ["explore", "$D/s.yaml", "--resume", "$D/explore-other", "--out", "$D/x"], 2, "--resume $D/explore-other goes on in that directory; leave --out out"),
        row("explore", ["explore", "$D/s.yaml", "--variant", "hardened", "--resume", "$D/explore-build"], 2, "--resume $D/explore-build: that exploration ran another build of harness, sth-focuspledge, sth-focuspledge-server"),
        // replay
        row("replay", ["replay", "$D/nowhere"], 2, "cannot read $D/nowhere/history.jsonl: pass a finished run's directory"),
        row("replay", ["replay"], 2, "Missing expected argument '<run-directory>'"),
        // shrink
        row("shrink", ["shrink", "$D/nowhere"], 2, "cannot read $D/nowhere/history.jsonl: pass a finished run's directory"),
        row("shrink", ["shrink", "$D/nowhere", "--max-runs", "0"], 2, "--max-runs \"0\": use a whole number of runs, 2...100000"),
        row("shrink", ["shrink"], 2, "Missing expected argument '<run-directory>'"),
        row("shrink", ["shrink", "$D/nowhere", "--match", "words"], 2, "--match \"words\": use explanation or invariant"),
        // shards
        row("run", ["run", "$D/s.yaml", "--shard", "5/4"], 2, "--shard 5/4: K is 5; it must be 1...4"),
        row("run", ["run", "$D/s.yaml", "--shard", "2"], 2, "--shard 2: use K/N with whole numbers"),
        row("explore", ["explore", "$D/s.yaml", "--shard", "0/2"], 2, "--shard 0/2: K is 0; it must be 1...2"),
        row("explore", ["explore", "$D/s.yaml", "--check-killed", "-1"], 2, "--check-killed \"-1\": use a whole number of points, 0...1000"),
        row("explore", ["explore", "$D/s.yaml", "--user-retry", "often"], 2, "--user-retry \"often\": use always, never, or a probability between 0 and 1 exclusive (e.g. 0.5)"),
        row("merge", ["merge", "$D/nowhere"], 2, "$D/nowhere: not a directory (pass the output directories of the shards"),
        row("merge", ["merge", "$D/empty"], 2, "$D/empty: holds no run directory"),
        row("merge", ["merge"], 2, "Missing expected argument '<directories> ...'"),
        row("merge", ["merge", "$D/explore-torn"], 2, "$D/explore-torn/explore.json: not an exploration's record"),
        row("merge", ["merge", "$D/explore-fifo"], 2, "$D/explore-fifo/explore.json: not a regular file (a FIFO)"),
        // Run shards: every case of the plan exactly once, and a gate that names known variants.
        row("merge", ["merge", "$D/shard-1"], 2, "1 of the suite's 2 runs are missing: shard 2/2"),
        row("merge", ["merge", "$D/shard-1", "$D/shard-1"], 2, "rally hardened seed 1 is here twice"),
        row("merge", ["merge", "$D/shard-1", "$D/shard-2", "--gate", "hardend"], 2, "--gate hardend: unknown variant 'hardend'"),
        row("merge", ["merge", "$D/explore-torn", "$D/empty"], 2, "$D/empty holds no exploration record (explore.json) but the others do"),
        row("merge", ["merge", "$D/explore-torn", "--out", "$D/m"], 2, "--out copies run directories; explore shards are merged from their records"),
        row("run", ["frobnicate"], 2, "frobnicate: cannot read scenario file"),
        // check
        row("check", ["check", "$D/nowhere"], 2, "cannot read $D/nowhere: no such file or directory"),
        row("check", ["check", "$D/empty"], 2, "not a run directory"),
        row("check", ["check", "$D/nostart.jsonl"], 2, "names no system", "pass --system"),
        row("check", ["check", "--system", "nope", "$D/nostart.jsonl"], 2, "unknown system 'nope'; known: focuspledge"),
        row("check", ["check", "--system", "exit", "$D/focuspledge.jsonl"], 2, "is a run of 'focuspledge', not 'exit'", "drop it"),
        row("check", ["check", "$D/garbage.jsonl"], 2, "holds no history lines (2 unparseable)"),
        row("check", ["check"], 2, "Missing expected argument '<runs> ...'"),
        row("check", ["check", "$D/fifo"], 2, "cannot read $D/fifo: not a regular file (a FIFO)"),
        // heartbeats
        row("heartbeats", ["heartbeats"], 2, "Missing expected argument '<runs> ...'"),
        row("heartbeats", ["heartbeats", "$D/nowhere"], 2, "cannot read $D/nowhere: no such file or directory"),
        row("heartbeats", ["heartbeats", "$D/empty"], 2, "not a run directory"),
        row("heartbeats", ["heartbeats", "$D/nostart.jsonl"], 2, "names no system", "not a run's history"),
        row("heartbeats", ["heartbeats", "$D/rally.jsonl"], 2, "declares no heartbeat monitor; systems that do: "),
        row("heartbeats", ["heartbeats", "$D/rally.jsonl", "--max-false-alarms-per-day=-1"], 2, "--max-false-alarms-per-day -1.0: must be a number of at least 0"),
        row("heartbeats", ["heartbeats", "$D/rally.jsonl", "--max-false-alarms-per-day", "x"], 2, "'--max-false-alarms-per-day <max-false-alarms-per-day>'"),
        // plan, normalize, systems
        row("plan", ["plan", "$D/missing.yaml"], 2, "cannot read scenario file"),
        row("plan", ["plan", "$D/s.yaml", "--seed", "-3"], 2, "use a whole number"),
        row("plan", ["plan", "$D/s.yaml", "--duration", "5x"], 2, "--duration \"5x\""),
        row("plan", ["plan", "$D/control.yaml"], 2, "control.yaml:2:10: invalid YAML: control characters are not allowed (here U+0001;", never: ["sk-live"]),
        row("plan", ["plan", "$D/environ"], 2, "environ:1:11: invalid YAML: control characters are not allowed (here U+0000;", never: ["PATH=", "HOME="]),
        row("plan", ["plan", "$D/start-submilli.yaml"], 2, "clock.start: \"2026-03-02T08:00:00.0001Z\" is finer than a millisecond"),
        row("plan", ["plan", "$D/start-late.yaml", "--duration", "7000h"], 2, "--duration 25200000s with $D/start-late.yaml: clock.start"),
        row("normalize", ["normalize", "$D/nowhere"], 2, "cannot read $D/nowhere/history.jsonl"),
        row("normalize", ["normalize", "$D/fifo-run"], 2, "$D/fifo-run/history.jsonl: not a regular file (a FIFO)"),
        row("normalize", ["normalize", "$D/garbage-run"], 2, "$D/garbage-run/history.jsonl: none of its 2 line(s) is a history event"),
        row("systems", ["systems", "--bogus"], 2, "Unknown option '--bogus'", "harness systems --help"),
        // doctor, bench, clean
        row("doctor", ["doctor", "--device-root", "$D/link"], 2, "device root $D/link (--device-root) is a symlink"),
        row("doctor", ["doctor", "--device-root", "$D/file"], 2, "device root $D/file (--device-root) is not a directory"),
        row("bench", ["bench", "notify", "--iterations", "5"], 2, "--iterations 5: must be 10...10000000"),
        row("bench", ["bench", "notify", "--device-root", "$D/link"], 2, "is a symlink"),
        row("bench", ["bench", "defaults", "--device-root", "$D/file"], 2, "is not a directory"),
        row("bench", ["bench", "time", "--rate", "0"], 2, "--rate 0.0: must be in 0.001...100000.0"),
        row("bench", ["bench", "time", "--duration", "nope"], 2, "--duration \"nope\""),
        row("bench", ["bench", "explore", "--points", "0"], 2, "--points 0: use a whole number of crash points, 1...10000"),
        row("bench", ["bench", "explore", "--jobs", "65"], 2, "--jobs 65: use a whole number of runs at once, 1...64"),
        row("bench", ["bench", "explore", "--scenario", "$D/missing.yaml"], 2, "cannot read scenario file"),
        row("clean", ["clean", "--bogus"], 2, "Unknown option '--bogus'", "harness clean --help"),
        // notify
        row("notify", ["notify", "post", "--device-root", "$D/root"], 2, "Missing expected argument '<name>'", "harness notify post --help"),
        row("notify", ["notify", "post", ".hidden", "--device-root", "$D/root"], 2, "invalid notification name \".hidden\"", "leading '.'"),
        row("notify", ["notify", "post", "a/b", "--device-root", "$D/root"], 2, "contains '/'"),
        row("notify", ["notify", "post", "x", "--device-root", "$D/missing"], 2, "no device root at $D/missing"),
        row("notify", ["notify", "post", "x", "--count", "0", "--device-root", "$D/root"], 2, "--count 0: must be 1...1000000"),
        row("notify", ["notify", "wait", "x", "--timeout", "0", "--device-root", "$D/root"], 2, "--timeout 0.0: must be more than 0"),
        row("notify", ["notify", "wait", "x", "--timeout", "0.2", "--device-root", "$D/root"], 1, "no post of x within 0.2 s"),
        row("notify", ["notify", "state", "x", "--set", "abc", "--device-root", "$D/root"], 2, "--set \"abc\": use an unsigned 64-bit number"),
        row("notify", ["notify", "state", "x", "--device-root", "$D/corrupt-root"], 2, "notify/x is corrupt (not a notify record)", "read it as never posted"),
        row("notify", ["notify", "bogus", "x"], 2, "unexpected arguments", "harness notify --help"),
        row("notify", ["notify", "state", "x", "--set", "-1", "--device-root", "$D/root"], 2, "--set \"-1\": use an unsigned 64-bit number"),
        row("notify", ["notify", "post", "$'\\xff\\xfe'", "--device-root", "$D/root"], 2, "argument 3 is not UTF-8 text (bytes ff fe)"),
        // watch
        row("watch", ["watch", "$D/nowhere"], 2, "$D/nowhere: no such run directory or device root"),
        row("watch", ["watch", ""], 2, "the path is empty: pass a run directory or a device root"),
        row("watch", ["watch", "$D/s.yaml"], 2, "$D/s.yaml is not a directory (a run directory or a device root)"),
        row("watch", ["watch", "$D/full"], 2, "$D/full is neither a run directory nor a device root: it holds none of history.jsonl, trace, clock"),
        row("watch", ["watch", "$D/ended-run"], 2, "the run in $D/ended-run has ended: its device root $D/gone-root is gone"),
        row("watch", ["watch", "$D/root", "--device-root", "$D/root"], 2, "give either a path or --device-root, not both"),
        row("watch", ["watch", "$D/root", "--count", "0"], 2, "--count 0: must be 1...1000000"),
        row("watch", ["watch", "$D/root", "--for", "soon"], 2, "--for \"soon\": use e.g. 30s, 5m or 2h (more than 0)"),
        // defaults
        row("defaults", ["defaults", "read", "group.test", "--device-root", "$D/full"], 2, "$D/full (--device-root) is not a device root: it holds none of clock, containers", "an empty directory"),
        row("defaults", ["defaults", "write", "group.test", "d", "10000-01-01T00:00:00Z", "--type", "date", "--device-root", "$D/root"], 2, "--type date: expected an ISO 8601 time"),
        row("defaults", ["defaults", "write", "group.test", "d", "0000-12-31T00:00:00Z", "--type", "date", "--device-root", "$D/root"], 2, "is before 0001-01-01T00:00:00Z, the first date a property list holds"),
        row("defaults", ["defaults", "write", "group.test", "d", "2026-02-30T00:00:00Z", "--type", "date", "--device-root", "$D/root"], 2, "is not a date: February 2026 has 28 days"),
        row("defaults", ["defaults", "write", "group.test", "d", "2026-01-01T24:00:00Z", "--type", "date", "--device-root", "$D/root"], 2, "is not a time of day"),
        row("defaults", ["defaults", "write", "group.test", "d", "2026-01-01T00:00:00+25:00", "--type", "date", "--device-root", "$D/root"], 2, "the zone offset is not ±HH:MM within ±23:59"),
        row("defaults", ["defaults", "read", "group.test", "--device-root", "$D/missing"], 2, "no device root at $D/missing"),
        row("defaults", ["defaults", "read", "not-a-group", "--device-root", "$D/root"], 2, "\"not-a-group\" is not an app group id", "--group"),
        row("defaults", ["defaults", "read", "group.test", "--group", "nogroup", "--device-root", "$D/root"], 2, "--group \"nogroup\": not an app group id"),
        row("defaults", ["defaults", "read", "bad/suite", "--group", "group.test", "--device-root", "$D/root"], 2, "invalid defaults suite name \"bad/suite\""),
        row("defaults", ["defaults", "read", "group.test", "absent", "--device-root", "$D/root"], 1, "the key \"absent\" does not exist in suite group.test"),
        row("defaults", ["defaults", "write", "group.test", "k", "v", "--type", "nope", "--device-root", "$D/root"], 2, "--type \"nope\": use one of string, int"),
        row("defaults", ["defaults", "write", "group.test", "k", "abc", "--type", "int", "--device-root", "$D/root"], 2, "\"abc\" is not a 64-bit integer (--type int)"),
        row("defaults", ["defaults", "write", "group.test", "k", "[1, null]", "--type", "json", "--device-root", "$D/root"], 2, "is not JSON without nulls"),
        row("defaults", ["defaults", "write", "group.test", "k", "--device-root", "$D/root"], 2, "Missing expected argument '<value>'"),
        row("defaults", ["defaults", "delete", "group.test", "absent", "--device-root", "$D/root"], 1, "the key \"absent\" does not exist"),
        row("defaults", ["defaults", "delete", "group.test", "--device-root", "$D/root"], 2, "name one KEY, or pass --all"),
        row("defaults", ["defaults", "delete", "group.test", "k", "--all", "--device-root", "$D/root"], 2, "pass KEY or --all, not both"),
        row("defaults", ["defaults", "write", "group.test", "k", String(repeating: "[", count: 100) + String(repeating: "]", count: 100), "--type", "json", "--device-root", "$D/root"], 2,
            "is not JSON nested at most 62 levels deep (it nests 100", never: [String(repeating: "[", count: 81)]),
        row("defaults", ["defaults", "write", "group.test", "k", "$'a\\x01b'", "--device-root", "$D/root"], 2,
            "key or value \"k\" holds U+1, which an XML 1.0 property list cannot hold"),
        row("defaults", ["defaults", "write", "group.test", "k", "[123456789012345678901234567890]", "--type", "json", "--device-root", "$D/root"], 2,
            "\"123456789012345678901234567890\" in --type json does not fit a 64-bit integer"),
        // report
        row("why", ["why", "$D/nowhere"], 2, "cannot read $D/nowhere/history.jsonl"),
        row("why", ["why", "$D/nowhere", "--max-runs", "1"], 2, "--max-runs \"1\": use a whole number of runs, 2...10000"),
        row("why", ["why", "$D/nowhere", "--violation", "0"], 2, "--violation \"0\": use a violation's number, 1 or more"),
        row("why", ["why", "$D/nowhere", "--budget", "soon"], 2, "--budget \"soon\": use a wall time like 30s or 5m (more than 0)"),
        row("why", ["why", "$D/nowhere", "--in-process", "all"], 2, "--in-process \"all\": takes auto or none"),
        // coverage
        row("coverage", ["coverage", "$D/missing.yaml"], 2, "missing.yaml: cannot read scenario file: No such file or directory"),
        row("coverage", ["coverage", "$D/s.yaml", "--gaps", "-1"], 2, "--gaps -1: use a whole number of lines, 0 or more"),
        row("coverage", ["coverage", "$D/s.yaml", "--fail-under", "120"], 2, "--fail-under 120.0: use a percentage from 0 to 100"),
        row("coverage", ["coverage", "$D/s.yaml", "--fail-under", "nan"], 2, "--fail-under nan: use a percentage from 0 to 100"),
        row("coverage", ["coverage", "$D/s.yaml", "--suite", "$D/suite-bogus.yaml"], 2, "name SCENARIO files or a suite, not both"),
        row("coverage", ["coverage", "$D/s.yaml", "--package-path", "$D"], 2, "$D has no Package.swift", "--package-path"),
        row("coverage", ["coverage", "$D/s.yaml", "--bin-path", "$D"], 2, "$D/sth-focuspledge is missing: build the stand-ins for coverage first"),
        row("coverage", ["coverage", "$D/s.yaml", "--seeds", "5-1"], 2, "the first seed 5 is greater than the last 1"),
        row("coverage", ["coverage", "$D/s.yaml", "--variant", "hardened", "--fuzz", "0"], 2, "--fuzz \"0\": use a wall time like 90s, 5m or 1h"),
        row("coverage", ["coverage", "$D/s.yaml", "--fuzz", "5m"], 2, "--fuzz: name one SCENARIO and its --variant"),
        row("coverage", ["coverage", "$D/s.yaml", "--variant", "hardened", "--fuzz", "5m", "--seeds", "1-3"], 2, "--fuzz picks its own seeds", "leave out --seeds"),
        row("coverage", ["coverage", "$D/s.yaml", "--fuzz-with", "bogus"], 2, "--fuzz-with \"bogus\": use plans or seeds"),
        row("report", ["report", "$D/nowhere"], 2, "$D/nowhere: no such directory"),
        row("report", ["report", "$D/empty"], 2, "$D/empty: no history.jsonl (not a run directory"),
        row("report", ["report", "$D/fifo"], 2, "$D/fifo: not a directory"),
        row("report", ["report", "$D/garbage-run"], 2, "$D/garbage-run/history.jsonl: none of its 2 line(s) is a history event"),
        row("report", ["report", "$D/startless-run"], 2, "$D/startless-run/history.jsonl: 1 history line(s) but no run_started line of the harness"),
        row("report", ["report"], 2, "Missing expected argument '<runs> ...'"),
        // What report writes goes through the output rule: a FIFO, a symlink or a device in the
        // place of the index or a run's report.html is refused, never replaced.
        row("report", ["report", "$D/report-run", "--index", "$D/fifo"], 2, "index $D/fifo: is a FIFO, not a regular file", "never replaces one"),
        row("report", ["report", "$D/report-run", "--index", "$D/filelink"], 2, "index $D/filelink: is a symlink", "never writes through or replaces a symlink"),
        row("report", ["report", "$D/report-run", "--index", "$D/passwd"], 2, "index $D/passwd exists and is not a page the harness wrote", "nothing was replaced"),
        row("report", ["report", "$D/report-run", "--index", "/dev/null"], 2, "index /dev/null: is a character device, not a regular file"),
        row("report", ["report", "$D/report-fifo"], 2, "report.html $D/report-fifo/report.html: is a FIFO, not a regular file"),
    ]

    /// The fixtures every row may name as `$D/...`, made once per test run.
    final class Fixtures: @unchecked Sendable {
        static let shared = try! Fixtures()
        let path: String

        init() throws {
            let fm = FileManager.default
            // Fixtures of earlier test runs whose process is gone (the suite has no teardown).
            for old in (try? fm.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? [] where old.hasPrefix("sth-bad-inputs-") {
                if let pid = Int32(old.dropFirst("sth-bad-inputs-".count)), kill(pid, 0) != 0, errno == ESRCH {
                    try? fm.removeItem(atPath: NSTemporaryDirectory() + old)
                }
            }
            path = NSTemporaryDirectory() + "sth-bad-inputs-\(getpid())"
            try? fm.removeItem(atPath: path)
            try fm.createDirectory(atPath: path, withIntermediateDirectories: true)
            // Removed when the test process exits, so a whole-suite run leaves nothing behind.
            atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "sth-bad-inputs-\(getpid())") }
            let good = """
                name: s
                system: focuspledge
                clock: { rate: 600 }
                duration: 30m
                workload:
                  blockedApps: [com.social.feed]
                """
            func write(_ name: String, _ text: String) throws { try text.write(toFile: path + "/" + name, atomically: false, encoding: .utf8) }
            try write("s.yaml", good)
            try write("unknown-key.yaml", good + "\nbogus: 1\n")
            try write("retry.yaml", good + "\nuser: { retry: sometimes }\n")
            try write("failpoint.yaml", good + "\nfailpoints:\n  - \"host-app:defaults:k=explode\"\n")
            try write("fixed.yaml", good.replacingOccurrences(of: "rate: 600", with: "rate: 600, mode: fixed"))
            try write("rate-500000.yaml", good.replacingOccurrences(of: "rate: 600", with: "rate: 500000"))
            try write("rate-tiny.yaml", good.replacingOccurrences(of: "rate: 600", with: "rate: 0.0001"))
            try Data([0x6E, 0x61, 0x6D, 0x65, 0x3A, 0x20, 0xE9, 0x0A]).write(to: URL(fileURLWithPath: path + "/latin1.yaml"))
            try write("feb30.yaml", good.replacingOccurrences(of: "rate: 600", with: "rate: 600, start: \"2026-02-30T08:00:00Z\""))
            // What `harness plan /proc/self/environ` reads (NUL-separated), the same on every machine.
            try write("environ", "HOME=/root\u{0}PATH=/usr/bin:/bin\u{0}TOKEN=sk-live-0123\u{0}")
            try write("control.yaml", "system: rally\nname: \"ab\u{01}sk-live-0123456789abcdef\"\n")
            try write("suite-bogus.yaml", "runs:\n  - scenarios: s.yaml\n    variants: [bogus]\n")
            try write("suite-budget.yaml", "runs:\n  - scenarios: s.yaml\n    budget: 30s\n")
            try write("suite-sample.yaml", "runs:\n  - scenarios: s.yaml\n    explore: each-label-once\n")
            try write("suite-sample-fixed.yaml", "runs:\n  - scenarios: fixed.yaml\n    explore: each-label-once\n")
            try write("start-0001.yaml", good.replacingOccurrences(of: "rate: 600", with: "rate: 600, start: \"0001-01-01T00:00:00Z\""))
            try write("start-submilli.yaml", good.replacingOccurrences(of: "rate: 600", with: "rate: 600, start: \"2026-03-02T08:00:00.0001Z\""))
            try write("start-1969.yaml", good.replacingOccurrences(of: "rate: 600", with: "rate: 600, start: \"1969-12-31T23:00:00Z\""))
            try write("start-9999.yaml", good.replacingOccurrences(of: "rate: 600", with: "rate: 600, start: \"9999-12-31T23:00:00Z\""))
            try write("start-late.yaml", good.replacingOccurrences(of: "rate: 600", with: "rate: 600, start: \"9999-06-01T00:00:00Z\""))
            try write("rate-1e400.yaml", good.replacingOccurrences(of: "rate: 600", with: "rate: 1e400"))
            try write("reboot-100h.yaml", good + "\nos: { reboots: [100h] }\n")
            try write("passwd", "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n")
            symlink(path + "/passwd", path + "/passwd-link")
            try write("token.yaml", "api_token: sk-live-0123456789abcdef\n")
            try write("long-name.yaml", good.replacingOccurrences(of: "name: s", with: "name: " + String(repeating: "x", count: 5000)))
            try write("file", "not a directory\n")
            try fm.createDirectory(atPath: path + "/empty", withIntermediateDirectories: true)
            try fm.createDirectory(atPath: path + "/full", withIntermediateDirectories: true)
            try write("full/something", "x")
            try fm.createDirectory(atPath: path + "/root", withIntermediateDirectories: true)
            try fm.createDirectory(atPath: path + "/corrupt-root/notify", withIntermediateDirectories: true)
            try write("corrupt-root/notify/x", "garbage, not a record")
            try fm.createDirectory(atPath: path + "/elsewhere", withIntermediateDirectories: true)
            symlink(path + "/elsewhere", path + "/link")
            symlink(path + "/file", path + "/filelink")
            mkfifo(path + "/fifo", 0o600)
            try fm.createDirectory(atPath: path + "/fifo-run", withIntermediateDirectories: true)
            mkfifo(path + "/fifo-run/history.jsonl", 0o600)
            // A directory whose history.jsonl holds lines, none of them a history event.
            try fm.createDirectory(atPath: path + "/garbage-run", withIntermediateDirectories: true)
            try write("garbage-run/history.jsonl", "garbage\nnot json either\n")
            // History lines, but none the harness's run_started: not a run either.
            try fm.createDirectory(atPath: path + "/startless-run", withIntermediateDirectories: true)
            try write("startless-run/history.jsonl", #"{"mono":1,"t":1.0,"process":"host","pid":2,"event":"something"}"# + "\n")
            // A run that ended: its device root is gone.
            try fm.createDirectory(atPath: path + "/ended-run", withIntermediateDirectories: true)
            try write("ended-run/history.jsonl", #"{"mono":1,"t":1.0,"process":"harness","pid":1,"event":"run_started","system":"rally","deviceRoot":"\#(path)/gone-root"}"# + "\n")
            // The two shards of a sharded suite (run_started carries Shard.facts).
            for (k, seed) in [(1, 1), (2, 2)] {
                let started = #"{"mono":1,"t":1.0,"process":"harness","pid":1,"event":"run_started","scenario":"rally","system":"rally","variant":"hardened","seed":"\#(seed)","shard":"\#(k)/2","planIndex":"\#(k - 1)","planRuns":"2","plan":"p1"}"#
                try fm.createDirectory(atPath: path + "/shard-\(k)/run", withIntermediateDirectories: true)
                try write("shard-\(k)/run/history.jsonl", started + "\n" + #"{"mono":2,"t":2.0,"process":"harness","pid":1,"event":"run_finished"}"# + "\n")
            }
            // A run directory report can read, and one whose report.html is a FIFO.
            let runLines = #"{"mono":1,"t":1.0,"process":"harness","pid":1,"event":"run_started","system":"rally","variant":"hardened"}"# + "\n"
                + #"{"mono":2,"t":2.0,"process":"harness","pid":1,"event":"run_finished"}"# + "\n"
            for run in ["report-run", "report-fifo"] {
                try fm.createDirectory(atPath: path + "/" + run, withIntermediateDirectories: true)
                try write(run + "/history.jsonl", runLines)
            }
            mkfifo(path + "/report-fifo/report.html", 0o600)
            try fm.createDirectory(atPath: path + "/explore-torn", withIntermediateDirectories: true)
            try write("explore-torn/explore.json", "{\"version\": 1, \"scenario\": \"fp\"")
            try fm.createDirectory(atPath: path + "/explore-other", withIntermediateDirectories: true)
            try write("explore-other/explore.json", """
                {"version": 1, "scenario": "other", "scenarioPath": "other.yaml", "variant": "hardened", "seed": 1, "build": "harness=?",
                 "eachLabelOnce": false, "crashPoints": ["host-app:shield:default#1"], "enumerationExitCode": 0, "enumerationRunDirectory": "/r",
                 "chosen": ["host-app:shield:default#1"], "points": [], "complete": false, "wallSeconds": 1}
                """)
            try fm.createDirectory(atPath: path + "/explore-build", withIntermediateDirectories: true)
            try write("explore-build/explore.json", """
                {"version": 1, "scenario": "s", "scenarioPath": "s.yaml", "variant": "hardened", "seed": 1, "build": "harness=0123456789abcdef",
                 "eachLabelOnce": false, "crashPoints": ["host-app:shield:default#1"], "enumerationExitCode": 0, "enumerationRunDirectory": "/r",
                 "chosen": ["host-app:shield:default#1"], "points": [], "complete": false, "wallSeconds": 1}
                """)
            try fm.createDirectory(atPath: path + "/explore-fifo", withIntermediateDirectories: true)
            mkfifo(path + "/explore-fifo/explore.json", 0o600)
            // A socket file stays when its socket is closed.
            let sock = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_un()
            addr.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &addr.sun_path) { raw in
                for (i, b) in (path + "/sock").utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
            }
            _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(sock, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
            close(sock)
            try write("nostart.jsonl", #"{"mono":1,"t":1.0,"process":"harness","pid":1,"event":"spawn"}"# + "\n")
            try write("focuspledge.jsonl", #"{"mono":1,"t":1.0,"process":"harness","pid":1,"event":"run_started","system":"focuspledge"}"# + "\n")
            try write("garbage.jsonl", "not json\n{also not\n")
            try write("rally.jsonl", #"{"mono":1,"t":1.0,"process":"harness","pid":1,"event":"run_started","system":"rally","variant":"hardened"}"# + "\n")
        }

        /// Each row's outcome, run once for both tests.
        private let lock = NSLock()
        private var outcomes: [[String]: Outcome] = [:]
        func outcome(_ row: Row, _ run: (Row) throws -> Outcome) rethrows -> Outcome {
            lock.lock()
            let cached = outcomes[row.arguments]
            lock.unlock()
            if let cached { return cached }
            let o = try run(row)
            lock.lock()
            outcomes[row.arguments] = o
            lock.unlock()
            return o
        }

        struct Unavailable: Error { var reason: String }

        func expand(_ s: String) -> String { s.replacingOccurrences(of: "$D", with: path) }
        func collapse(_ s: String) -> String { s.replacingOccurrences(of: path, with: "$D") }
    }

    struct Outcome {
        var status: ChildProcess.ExitStatus?
        var stderr: String
        /// Why the row did not run (its fixture cannot be made here).
        var skipped: String? = nil
    }

    /// Makes `need`'s fixture; returns how to take it down, or throws why it cannot be made.
    static func setUp(_ need: Need?) throws -> () -> Void {
        switch need {
        case nil: return {}
        case .readOnlyMount?:
            let dir = Fixtures.shared.path + "/readonly"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            guard mount("tmpfs", dir, "tmpfs", UInt(MS_RDONLY), "size=16k") == 0 else {
                let why = "cannot mount a read-only tmpfs here (\(String(cString: strerror(errno))))"
                rmdir(dir)
                throw Fixtures.Unavailable(reason: why)
            }
            return {
                umount2(dir, Int32(MNT_DETACH))
                rmdir(dir)
            }
        }
    }

    static func run(_ row: Row) throws -> Outcome { try Fixtures.shared.outcome(row, runUncached) }

    static func runUncached(_ row: Row) throws -> Outcome {
        let f = Fixtures.shared
        let tearDown: () -> Void
        do { tearDown = try setUp(row.needs) } catch let e as Fixtures.Unavailable { return Outcome(status: nil, stderr: "", skipped: e.reason) }
        defer { tearDown() }
        let errPath = f.path + "/.stderr-\(UUID().uuidString.prefix(8))"
        let fd = open(errPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer {
            close(fd)
            unlink(errPath)
        }
        // No SCREENTIME_DEVICE_ROOT from the caller's shell: rows name their roots.
        var env = ProcessInfo.processInfo.environment
        env["SCREENTIME_DEVICE_ROOT"] = nil
        // An argument written $'…' (bash's ANSI-C quoting) holds bytes a Swift String cannot (not
        // UTF-8): such a row runs through bash, every other argument single-quoted.
        let harness = try Executables.path(of: "harness")
        let arguments = row.arguments.map(f.expand)
        let p: ChildProcess
        if arguments.contains(where: { $0.hasPrefix("$'") }) {
            let line = (["exec", harness] + arguments).map { $0.hasPrefix("$'") ? $0 : "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            p = try ChildProcess.spawn("/bin/bash", ["-c", line.joined(separator: " ")], environment: env, captureStdout: true, stderrTo: fd, workingDirectory: f.path)
        } else {
            p = try ChildProcess.spawn(harness, arguments, environment: env, captureStdout: true, stderrTo: fd, workingDirectory: f.path)
        }
        while p.readLine(timeout: .seconds(60)) != nil {}
        let status = p.wait(timeout: .seconds(30)) ?? p.killAndReap()
        return Outcome(status: status, stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }

    @Test(arguments: rows)
    func badInputExitsWithOneLine(row: Row) throws {
        let outcome = try Self.run(row)
        if let why = outcome.skipped {
            print("skipped \(row.testDescription): \(why)")
            return
        }
        #expect(outcome.status == .exited(row.exitCode), "stderr: \(outcome.stderr)")
        let lines = outcome.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "not exactly one line: \(outcome.stderr)")
        #expect(outcome.stderr.hasPrefix("error: "))
        for w in row.words { #expect(outcome.stderr.contains(Fixtures.shared.expand(w)), "missing \(String(reflecting: w)) in \(outcome.stderr)") }
        for w in row.never { #expect(!outcome.stderr.contains(w), "printed \(String(reflecting: w)): \(outcome.stderr)") }
        // A message never echoes a whole file or value (an excerpt is at most 80 characters).
        #expect(outcome.stderr.count < 600, "\(outcome.stderr.count) characters: \(outcome.stderr.prefix(200))")
    }

    /// docs/BAD-INPUTS.md is this table with what the harness really printed.
    @Test func theDocumentIsTheTable() throws {
        #expect(Self.rows.count >= 40)
        #expect(Set(Self.rows.map(\.verb)).isSuperset(of: ["run", "check", "plan", "normalize", "systems", "doctor", "bench", "clean", "notify", "defaults"]))
        var doc = """
            # Bad inputs

            Every verb of `harness` answers a bad input with exactly one line on stderr, `error: …`, naming what
            to fix, and an exit code that is never the code of a verdict it did not reach: 0 held (or done),
            1 a violation — or, for `notify wait` and `defaults read|delete`, that what was asked for is not
            there —, 2 could not decide or bad input, 130/143 a run stopped by SIGINT/SIGTERM (docs/CI.md, "Exit
            codes"). Everything that can be checked before a run is, so a bad input never costs a run.

            Generated by `Tests/HarnessKitTests/CLI/BadInputTests.swift` from the table it runs
            (`STH_UPDATE_DOCS=1 swift test --skip-build --filter BadInputTests` rewrites it); `$D` is the
            test's directory of fixtures: `s.yaml` a good scenario, `link` a symlink to a directory, `file` a
            regular file, `filelink` a symlink to it, `passwd-link` a symlink to a passwd-like file, `fifo` a FIFO, `sock` a socket, `full` a non-empty directory, `root` an empty device root, `missing` and `nowhere`
            absent paths, `nostart.jsonl` a history without `run_started`.

            A message quotes a value or a file at most as an escaped 80-character excerpt, and never
            shows what a file holds that is not a scenario (rows 6-11). What a verb writes goes to a
            regular file only, whole or not at all (`--junit` rows; a full disk: OutputTargetTests).
            Not bad inputs, but once misleading: `notify wait --count N` prints exactly N
            callbacks; an interrupted run's summary counts only the runs that finished; the clock file
            is 0600 like every protocol file; `scripts/test` and `scripts/harness` run Swift with a
            TMPDIR of their own (every SwiftPM or swiftc start leaves an empty `TemporaryDirectory.*`).

            | # | input | exit | message (stderr) |
            | ---: | --- | ---: | --- |

            """
        let committed = (try? String(contentsOfFile: Self.documentPath, encoding: .utf8)) ?? ""
        for (i, row) in Self.rows.enumerated() {
            let outcome = try Self.run(row)
            if outcome.skipped != nil {
                // Not runnable here: the committed line stands (the row's own test says skipped).
                let prefix = "| \(i + 1) | "
                if let line = committed.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) { doc += line + "\n" }
                continue
            }
            let message = Fixtures.shared.collapse(outcome.stderr.trimmingCharacters(in: .newlines))
            let code: String
            switch outcome.status {
            case .exited(let c)?: code = String(c)
            case .signalled(let s)?: code = "signal \(s)"
            case nil: code = "hung"
            }
            let input = "harness " + row.arguments.map { ($0.contains(" ") || $0.isEmpty) && !$0.hasPrefix("$'") ? "'\($0)'" : $0 }.joined(separator: " ")
            doc += "| \(i + 1) | `\(input.replacingOccurrences(of: "|", with: "\\|"))` | \(code) | \(message.replacingOccurrences(of: "|", with: "\\|")) |\n"
        }
        if ProcessInfo.processInfo.environment["STH_UPDATE_DOCS"] == "1" {
            try doc.write(toFile: Self.documentPath, atomically: false, encoding: .utf8)
        }
        #expect(((try? String(contentsOfFile: Self.documentPath, encoding: .utf8)) ?? "") == doc,
            "docs/BAD-INPUTS.md is out of date: STH_UPDATE_DOCS=1 swift test --skip-build --filter BadInputTests")
    }

    static let documentPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/BAD-INPUTS.md").path
}
