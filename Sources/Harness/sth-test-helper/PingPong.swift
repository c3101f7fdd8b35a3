// `sth-test-helper pingpong ping|pong`: the two processes of the test suite's ping-pong system
// (Tests/HarnessKitTests/Systems/PingPongPack.swift), written against the on-disk protocol alone
// (docs/PROTOCOL.md): AppGroup for defaults and notify, trace lines and the inbox by hand. That a
// system can plug in this way is what the test shows.
//
//   ping: the user's "serve" taps (inbox) set `ball` and post `pingpong.ping`; on `pingpong.pong`
//         it reads `returned` and traces `returned upTo=<n>`.
//   pong: on `pingpong.ping` it reads `ball`, sets `returned` and posts `pingpong.pong`.
//         as-written acknowledges ball - 1 (an off-by-one bug the checker must catch).
import AppGroup
import Foundation

#if canImport(Glibc)
import Glibc
#endif

enum PingPong {
    static let group = "group.test.pingpong"

    static func run(_ role: String) -> Never {
        let env = ProcessInfo.processInfo.environment
        guard let rootPath = env[DeviceRoot.environmentVariable], let runDir = env["SCREENTIME_RUN_DIR"] else {
            fail("pingpong: SCREENTIME_DEVICE_ROOT and SCREENTIME_RUN_DIR must be set")
        }
        let variant = env["SCREENTIME_VARIANT"] ?? "hardened"
        do {
            let root = try DeviceRoot(path: rootPath, create: false)
            let clock = DeviceClock(deviceRoot: root)
            let center = try DarwinNotificationCenter(deviceRoot: root)
            let container = try AppGroupContainer(deviceRoot: root, groupIdentifier: group, entitlements: .fromEnvironment())
            let defaults = try SharedDefaults(container: container, suiteName: group)
            let trace = Trace(path: "\(runDir)/trace/\(role).jsonl", process: role, clock: clock)
            trace.log("launched", ["variant": variant])
            // Stepped virtual time (PROTOCOL.md §9): after each piece of work, say that we are idle,
            // have no timer, and which generation of each observed name we have taken in.
            let scheduler = clock.isStepped ? SchedulerChannel.open(deviceRoot: root) : nil
            let observed = ["ping": ["system.inbox.ping", "pingpong.pong"], "pong": ["pingpong.ping"]][role] ?? []
            let reportLock = NSLock()
            @Sendable func reportIdle() {
                guard let scheduler else { return }
                reportLock.lock()
                defer { reportLock.unlock() }
                var consumed: [String: UInt64] = [:]
                for name in observed { consumed[name] = center.lastDelivered(name) ?? 0 }
                scheduler.reportIdle(nextUnixSeconds: nil, http: [:], consumed: consumed)
            }
            switch role {
            case "ping":
                let inbox = "\(rootPath)/system/inbox/ping"
                @Sendable func takeInbox() {
                    let names = ((try? FileManager.default.contentsOfDirectory(atPath: inbox)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
                    for name in names.prefix(64) {
                        let data = FileManager.default.contents(atPath: "\(inbox)/\(name)")
                        try? FileManager.default.removeItem(atPath: "\(inbox)/\(name)")
                        guard let data, let obj = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
                            obj["action"] as? String == "serve", let ball = ((obj["fields"] as? [String: String])?["ball"]).flatMap({ Int($0) })
                        else { continue }
                        defaults.set(ball, forKey: "ball")
                        trace.log("served", ["ball": String(ball)])
                        try? center.post("pingpong.ping")
                    }
                }
                @Sendable func sawReturn() {
                    let returned = defaults.integer(forKey: "returned")
                    if returned > 0 { trace.log("returned", ["upTo": String(returned)]) }
                }
                try center.addObserver("system.inbox.ping") { _ in takeInbox(); reportIdle() }
                try center.addObserver("pingpong.pong") { _ in sawReturn(); reportIdle() }
                takeInbox()
                sawReturn()
                // A ball served before a kill and not yet returned is served again.
                if defaults.integer(forKey: "ball") > defaults.integer(forKey: "returned") { try? center.post("pingpong.ping") }
                reportIdle()
            case "pong":
                @Sendable func returnBall() {
                    let ball = defaults.integer(forKey: "ball")
                    guard ball > 0 else { return }
                    let ack = variant == "as-written" ? ball - 1 : ball
                    defaults.set(ack, forKey: "returned")
                    trace.log("acknowledged", ["ball": String(ball), "returned": String(ack)])
                    try? center.post("pingpong.pong")
                }
                try center.addObserver("pingpong.ping") { _ in returnBall(); reportIdle() }
                returnBall()
                reportIdle()
            default:
                fail("pingpong: role must be ping or pong, not \(role)")
            }
        } catch {
            fail("pingpong \(role): \(error)")
        }
        while true { sleep(60) }
    }

    /// HISTORY.md §8 trace lines, one write(2) each on an O_APPEND fd.
    final class Trace: @unchecked Sendable {
        let fd: Int32
        let process: String
        let clock: DeviceClock

        init(path: String, process: String, clock: DeviceClock) {
            fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            self.process = process
            self.clock = clock
        }

        func log(_ event: String, _ fields: [String: String]) {
            var ts = timespec()
            clock_gettime(CLOCK_MONOTONIC, &ts)
            var obj: [String: Any] = fields
            obj["mono"] = Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
            obj["t"] = clock.nowUnixSeconds()
            obj["process"] = process
            obj["pid"] = Int(getpid())
            obj["event"] = event
            guard var line = try? JSONSerialization.data(withJSONObject: obj) else { return }
            line.append(0x0A)
            _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }
    }
}
