// A separate process for the tests to start, signal and kill. Subcommands:
//   increment  --root R --key K --count N       N atomic increments, then "done <last>"
//   writer     --root R --key K                 endless writes, "ack <n>" after each one lands
//   observer   --root R --name A [--name B ...] "ready", then "cb <name>" per callback
//   post       --root R --name A --count N      N posts, then "done"
//   heartbeat  --root R --writer W --interval S "ready", then beats until killed
//   pingpong   ping|pong                         the test ping-pong system (PingPong.swift)
//   hold-lock  --root R                         takes the suite's and notify/'s locks, "locked", never lets go
//   spawn-child --root R                        starts /bin/sleep as a ChildProcess, "child <pid>", waits
//   clock      --root R                         "page yes|no" (an inherited ClockPage), then "now <unix s>"
//                                               at the start and at every change of device time (30 s)
//   osprobe    host|monitor|shield|config ...    the test OS probe system (OSProbe.swift)
// Every process uses app group `group.test` and suite `group.test`.
import AppGroup
import Foundation
import Supervision

#if canImport(Glibc)
import Glibc
#endif

func emit(_ s: String) {
    let line = s + "\n"
    _ = line.utf8CString.withUnsafeBufferPointer { write(1, $0.baseAddress!, $0.count - 1) }
}

func fail(_ s: String) -> Never {
    FileHandle.standardError.write(Data("sth-test-helper: \(s)\n".utf8))
    exit(2)
}

func parseOptions() -> (String, [String: [String]]) {
    var args = Array(CommandLine.arguments.dropFirst())
    guard !args.isEmpty else { fail("usage: sth-test-helper <command> [options]") }
    let command = args.removeFirst()
    var options: [String: [String]] = [:]
    while !args.isEmpty {
        let k = args.removeFirst()
        guard k.hasPrefix("--"), !args.isEmpty else { fail("bad option \(k)") }
        options[String(k.dropFirst(2)), default: []].append(args.removeFirst())
    }
    return (command, options)
}
if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "osprobe" {
    Executables.dieWithParent()
    OSProbe.run(Array(CommandLine.arguments.dropFirst(2)))
}
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "pingpong" {
    Executables.dieWithParent()
    PingPong.run(CommandLine.arguments[2])
}
let (command, options) = parseOptions()
nonisolated func opt(_ k: String) -> String {
    guard let v = options[k]?.first else { fail("missing --\(k)") }
    return v
}

Executables.dieWithParent()
let group = "group.test"
do {
    let root = try DeviceRoot(path: opt("root"))
    func defaults() throws -> SharedDefaults {
        let c = try AppGroupContainer(deviceRoot: root, groupIdentifier: group, entitlements: Entitlements(appGroups: [group]))
        return try SharedDefaults(container: c, suiteName: group, lockTimeout: .seconds(10))
    }
    switch command {
    case "increment":
        let d = try defaults()
        let key = opt("key")
        let n = Int(opt("count")) ?? 0
        var last = 0
        for _ in 0..<n {
            last = try d.update { s -> Int in
                let v = (s[key]?.integerValue ?? 0) + 1
                s[key] = .integer(Int64(v))
                return v
            }
        }
        emit("done \(last)")
    case "writer":
        let d = try defaults()
        let key = opt("key")
        // A few KB per file so that kills land inside writes, not only between them.
        let payload = String(repeating: "x", count: 8192)
        while true {
            let v = try d.update { s -> Int in
                let v = (s[key]?.integerValue ?? 0) + 1
                s[key] = .integer(Int64(v))
                s["payload"] = .string(payload + String(v))
                return v
            }
            emit("ack \(v)")
        }
    case "observer":
        let center = try DarwinNotificationCenter(deviceRoot: root)
        for name in options["name"] ?? [] {
            try center.addObserver(name) { n in emit("cb \(n)") }
        }
        emit("ready")
        while true { sleep(1000) }
    case "post":
        let center = try DarwinNotificationCenter(deviceRoot: root)
        let n = Int(opt("count")) ?? 0
        for _ in 0..<n { try center.post(opt("name")) }
        emit("done")
    case "watcher-stop":
        let center = try DarwinNotificationCenter(deviceRoot: root)
        let sem = DispatchSemaphore(value: 0)
        try center.addObserver("w") { _ in sem.signal() }
        try center.post("w")
        guard sem.wait(timeout: .now() + .seconds(5)) == .success else { fail("no callback before stop") }
        // The thread is now blocked in its inotify read, i.e. forever.
        usleep(200_000)
        let t0 = DispatchTime.now().uptimeNanoseconds
        DarwinNotificationCenter.stopWatcherThread()
        emit("stopped \((DispatchTime.now().uptimeNanoseconds - t0) / 1000)")
        let c2 = try DarwinNotificationCenter(deviceRoot: root)
        try c2.addObserver("w2") { _ in sem.signal() }
        try c2.post("w2")
        guard sem.wait(timeout: .now() + .seconds(5)) == .success else { fail("no callback after restart") }
        emit("restarted")
    case "heartbeat":
        let c = try AppGroupContainer(deviceRoot: root, groupIdentifier: group, entitlements: Entitlements(appGroups: [group]))
        let w = try HeartbeatWriter(container: c, writer: opt("writer"), intervalSeconds: Double(opt("interval")) ?? 1, clock: DeviceClock(deviceRoot: root))
        try w.beat()
        w.start()
        emit("ready")
        while true { sleep(1000) }
    case "hold-lock":
        // A holder that never lets go (the tests SIGSTOP it): both lock files of PROTOCOL.md §1.
        let prefs = try root.subdirectory("containers/\(group)/Library/Preferences")
        let suiteLock = try FileLock(directory: prefs, name: group + ".plist.lock")
        let notifyLock = try FileLock(directory: root.subdirectory(DarwinNotificationCenter.directoryName), name: ".lock")
        try suiteLock.lock(timeout: .seconds(5))
        try notifyLock.lock(timeout: .seconds(5))
        emit("locked")
        while true { sleep(1000) }
    case "spawn-child":
        // A grandchild for the tests: it must die with this process (PR_SET_PDEATHSIG).
        let child = try ChildProcess.spawn("/bin/sleep", ["1000"], captureStdout: false)
        emit("child \(child.pid)")
        while true { sleep(1000) }
    case "clock":
        emit("page \(ClockPage.inherited == nil ? "no" : "yes")")
        let clock = DeviceClock(deviceRoot: root)
        var last: Double?
        let end = Date().addingTimeInterval(30)
        while Date() < end {
            let now = clock.nowUnixSeconds()
            if now != last { emit("now \(now)") }
            last = now
            usleep(1000)
        }
    default:
        fail("unknown command \(command)")
    }
} catch {
    fail("\(error)")
}
