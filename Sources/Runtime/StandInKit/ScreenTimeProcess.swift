import AppGroup
import ArgumentParser
import DeviceActivity
import Foundation
import ManagedSettings
import ManagedSettingsUI
import SystemKit

/// A team's own app code as stand-in executables, one call each, in a `main.swift`:
///
///     // Sources/myapp-monitor/main.swift
///     import MyAppShared
///     import StandInKit
///     ScreenTimeProcess.extension(MyDeviceActivityMonitor())
///
///     // Sources/myapp-host/main.swift
///     ScreenTimeProcess.app(MyHostAdapter())
///
/// The harness names the role and its entitlements in the environment (`SCREENTIME_PROCESS`,
/// `APP_GROUPS`, EMULATED-IOS.md §7): the executable needs no arguments of its own. The principal is made
/// once the process's device is set up — as iOS instantiates `NSExtensionPrincipalClass` — so its
/// `init` may already open `UserDefaults(suiteName:)` or a `ManagedSettingsStore`.
public enum ScreenTimeProcess {
    /// A `DeviceActivityMonitor` subclass as an extension executable: one callback, then exit.
    public static func `extension`(_ principal: @autoclosure () -> DeviceActivityMonitor) -> Never {
        runExtension(.deviceActivityMonitor) { .monitor(principal()) }
    }

    /// A `ShieldActionDelegate` subclass as an extension executable: one button press, then exit.
    public static func `extension`(_ principal: @autoclosure () -> ShieldActionDelegate) -> Never {
        runExtension(.shieldAction) { .shieldAction(principal()) }
    }

    /// A `ShieldConfigurationDataSource` subclass as an extension executable: one configuration, then exit.
    public static func `extension`(_ principal: @autoclosure () -> ShieldConfigurationDataSource) -> Never {
        runExtension(.shieldConfiguration) { .shieldConfiguration(principal()) }
    }

    /// The host app: `adapter` maps what iOS and the user do (launch, taps, notifications,
    /// timers) to calls into the app's own code, and runs until iOS ends the process.
    public static func app(_ adapter: @autoclosure () -> AppAdapter, heartbeat: AppRunner.Heartbeat? = nil) -> Never {
        let ctx = context()
        do { try AppRunner(context: ctx, adapter: adapter(), heartbeat: heartbeat).run() } catch {
            StandInContext.fail(ctx.process, "\(error)")
        }
    }

    /// The process's context: its role from `SCREENTIME_PROCESS`, its App Group the first of its
    /// entitlements. A process started by hand without them exits 2 saying which is missing.
    public static func context(environment env: [String: String] = StandInEnvironment.current) -> StandInContext {
        let name = env[StandInEnvironment.processVariable] ?? ""
        guard !name.isEmpty else {
            StandInContext.fail("stand-in", "\(StandInEnvironment.processVariable) is not set: this executable is a role the harness starts (harness run SCENARIO)")
        }
        guard let group = Entitlements.fromEnvironment(env).appGroups.sorted().first else {
            StandInContext.fail(name, "\(Entitlements.environmentVariable) names no App Group: declare the system's appGroups in its descriptor")
        }
        do { return try StandInContext(process: name, appGroup: group, environment: env) } catch {
            StandInContext.fail(name, "\(error)")
        }
    }

    static func runExtension(_ point: ExtensionPoint, _ principal: () -> ExtensionPrincipal) -> Never {
        let ctx = context()
        do {
            let options = try FrameworkCallOptions.parse(Array(CommandLine.arguments.dropFirst()))
            let call = try options.call(for: point)
            try FrameworkExtension.run(call, delivery: options.delivery, context: ctx, principal: principal())
        } catch {
            StandInContext.fail(ctx.process, "\(error)")
        }
    }
}
