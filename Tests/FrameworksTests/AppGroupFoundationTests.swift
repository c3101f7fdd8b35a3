import AppGroup
import Foundation
import OSLog
import Testing

/// What app code gets from `UserDefaults` and `Logger` through the Apple-named modules
/// (EMULATED-IOS.md §7.11). The App Group suite itself is exercised end to end by scripts/test-init
/// (a shield extension's `UserDefaults(suiteName:)` writes are App Group writes in the history).
@Suite(.serialized, .timeLimit(.minutes(1))) struct AppGroupFoundationTests {
    /// Runs `body` on a thread whose environment is a stand-in's: `process` on `device`.
    func asStandIn<T: Sendable>(_ device: TestDevice, process: String, appGroups: String = "", _ body: @escaping @Sendable () throws -> T) throws -> T {
        let result = LockedBox<Result<T, Error>?>(nil)
        let env = [DeviceRoot.environmentVariable: device.path, "SCREENTIME_PROCESS": process, Entitlements.environmentVariable: appGroups]
        let thread = Thread {
            StandInEnvironment.setForThisThread(env)
            result.value = Result { try body() }
            StandInEnvironment.setForThisThread(nil)
        }
        thread.start()
        #expect(eventually(10) { result.value != nil })
        return try #require(result.value).get()
    }

    @Test func standardIsTheProcessesOwnStoreInItsSandbox() throws {
        let device = try TestDevice()
        let read: Int = try asStandIn(device, process: "host") {
            let d = AppGroupFoundation.UserDefaults(suiteName: nil)!
            d.set(42, forKey: "launches")
            d.set("x", forKey: "mode")
            d.removeObject(forKey: "mode")
            return d.integer(forKey: "launches")
        }
        #expect(read == 42)
        #expect(device.exists("sandboxes/host/Library/Preferences/standard.plist"))
        // Another role's standard store is its own: it does not see the host's key.
        let other: Int = try asStandIn(device, process: "monitor") { AppGroupFoundation.UserDefaults(suiteName: nil)!.integer(forKey: "launches") }
        #expect(other == 0)
    }

    @Test func aSuiteThatIsNoAppGroupIsPrivateToo() throws {
        let device = try TestDevice()
        let wrote: Bool = try asStandIn(device, process: "host") {
            let d = AppGroupFoundation.UserDefaults(suiteName: "com.example.settings")
            d?.set(true, forKey: "onboarded")
            return d?.bool(forKey: "onboarded") ?? false
        }
        #expect(wrote)
        #expect(device.exists("sandboxes/host/Library/Preferences/com.example.settings.plist"))
    }

    @Test func namesIOSRefusesGiveNil() throws {
        let device = try TestDevice()
        let refused: Bool = try asStandIn(device, process: "host") { AppGroupFoundation.UserDefaults(suiteName: "NSGlobalDomain") == nil }
        #expect(refused)
    }

    @Test func noProcessNoStore() {
        // A process the harness did not start has no sandbox: nil, never a file somewhere else.
        let env = StandInEnvironment.current
        guard env["SCREENTIME_PROCESS"] == nil else { return }
        #expect(AppGroupFoundation.UserDefaults(suiteName: "com.example.settings") == nil)
    }

    @Test func anUnavailableAppGroupHidesTheContainerFromAppCodeOnly() throws {
        let device = try TestDevice()
        let env = AppGroupEnvironment(deviceRoot: device.device.root, entitlements: Entitlements(appGroups: ["group.x"]))
        #expect(env.containerURL(forSecurityApplicationGroupIdentifier: "group.x") != nil)
        let hidden: Bool = try asStandIn(device, process: "monitor", appGroups: "group.x") {
            // As `os.appGroupUnavailable` starts the role: its code sees no group.
            StandInEnvironment.setForThisThread(StandInEnvironment.current.merging([AppGroupEnvironment.unavailableVariable: "1"]) { _, new in new })
            return env.containerURL(forSecurityApplicationGroupIdentifier: "group.x") == nil && SharedDefaults(suiteName: "group.x") == nil
                && AppGroupFoundation.UserDefaults(suiteName: "group.x") == nil
        }
        #expect(hidden)
        // The harness's own runtime still opens the container (a designated init, not app code's).
        #expect((try? env.container("group.x")) != nil)
    }

    @Test func loggerLinesGoToTheSinkWithLevelSubsystemCategory() {
        let lines = LockedBox<[[String]]>([])
        OSLogSink.handler = { level, subsystem, category, message in lines.value.append([level, subsystem, category, message]) }
        defer { OSLogSink.handler = nil }
        let log = Logger(subsystem: "com.example.app", category: "monitor")
        let ball = 7
        log.info("won ball \(ball, privacy: .public) of \(9)")
        log.error("failed: \("disk full", privacy: .private)")
        log.debug("fraction \(0.5, format: .fixed(precision: 2))")
        os_log("started %{public}@ with %d", log: OSLog(subsystem: "com.example.app", category: "legacy"), type: .fault, "monitor", 3)
        #expect(lines.value == [
            ["info", "com.example.app", "monitor", "won ball 7 of 9"],
            ["error", "com.example.app", "monitor", "failed: disk full"],
            ["debug", "com.example.app", "monitor", "fraction 0.5"],
            ["fault", "com.example.app", "legacy", "started monitor with 3"],
        ])
    }

    /// Inside the harness, stand-ins are threads of one process; where a launch's log lines and
    /// traced writes go is set by each launch before its code runs, and one launch setting its
    /// own must not send another's lines to it (the host's `Logger` lines into an extension's trace).
    @Test func whereLogLinesGoIsEachLaunchsOwnInsideTheHarness() {
        final class Launch: Sendable {}
        let host = Launch(), ext = Launch()
        let lines = LockedBox<[String]>([])
        func onThread(of launch: Launch, _ body: @escaping @Sendable () -> Void) {
            let done = DispatchSemaphore(value: 0)
            Thread {
                StandInEnvironment.setIncarnationForThisThread(launch)
                body()
                StandInEnvironment.setIncarnationForThisThread(nil)
                done.signal()
            }.start()
            done.wait()
        }
        let process = OSLogSink.handler
        onThread(of: host) { OSLogSink.handler = { _, _, _, m in lines.value.append("host: " + m) } }
        // The extension launches after the host and sets its own.
        onThread(of: ext) { OSLogSink.handler = { _, _, _, m in lines.value.append("ext: " + m) } }
        onThread(of: host) { Logger(subsystem: "s", category: "c").info("from the host") }
        onThread(of: ext) { Logger(subsystem: "s", category: "c").info("from the extension") }
        #expect(lines.value == ["host: from the host", "ext: from the extension"])
        // The process's own (a stand-in in a process of its own) was not touched by either.
        #expect((OSLogSink.handler == nil) == (process == nil))
    }
}

/// A value shared with a test's thread.
final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
