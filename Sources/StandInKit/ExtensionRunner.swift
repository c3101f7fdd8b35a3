import AppGroup
import ArgumentParser
import Foundation
import SystemKit

#if canImport(Glibc)
import Glibc
#endif

/// The pack's side of an extension process: one call in, effects out.
public protocol ExtensionAdapter {
    func handle(_ call: ExtensionCall, now: Date, store: () -> [String: PropertyListValue]) -> [Effect]
}

/// The arguments the emulated OS starts an extension with (`ExtensionCall.arguments(delivery:)`).
public struct ExtensionCallOptions: ParsableArguments {
    @Option(help: "DeviceActivityMonitor callback, e.g. intervalDidStart.") public var callback: MonitorCallback?
    @Option(help: "The DeviceActivityName of a monitor callback.") public var activity: String?
    @Option(help: "The DeviceActivityEvent.Name of an event callback.") public var event: String?
    @Option(help: "Shield action: primaryButtonPressed or secondaryButtonPressed.") public var action: ShieldAction?
    @Option(help: "The shielded application (bundle id).") public var app: String?
    @Option(help: "The harness's id for this delivery (traced).") public var delivery: String = ""

    public init() {}

    /// The call for `point`, or a one-line reason why the arguments do not make one.
    public func call(for point: ExtensionPoint) throws -> ExtensionCall {
        switch point {
        case .deviceActivityMonitor:
            guard let callback, let activity else { throw ValidationError("--callback and --activity are required") }
            return .monitor(callback, activity: activity, event: event)
        case .shieldAction:
            guard let app else { throw ValidationError("--app is required") }
            return .shieldAction(action ?? .primaryButtonPressed, application: app)
        case .shieldConfiguration:
            guard let app else { throw ValidationError("--app is required") }
            return .shieldConfiguration(application: app)
        }
    }
}

extension MonitorCallback: ExpressibleByArgument {}

extension ShieldAction: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument {
        case "primary": self = .primaryButtonPressed
        case "secondary": self = .secondaryButtonPressed
        default: self.init(rawValue: argument)
        }
    }
}

/// One extension callback, as iOS runs it: a fresh process, one call, then exit.
public enum ExtensionRunner {
    public static func run(_ call: ExtensionCall, delivery: String, context: StandInContext, adapter: ExtensionAdapter) -> Never {
        var begin = ["callback": call.callbackName, "delivery": delivery]
        switch call {
        case .monitor(_, let activity, let event):
            begin["activity"] = activity
            if let event { begin["event"] = event }
        case .shieldAction(let action, let application):
            begin["app"] = application
            begin["action"] = action.rawValue
        case .shieldConfiguration(let application):
            begin["app"] = application
        }
        context.trace.log("callback_begin", begin)
        let device = LiveDevice(context: context, delivery: delivery)
        let effects = adapter.handle(call, now: context.clock.now(), store: { context.snapshot() })
        EffectInterpreter.perform(effects, on: device)
        context.trace.log("callback_end", ["callback": call.callbackName, "delivery": delivery])
        exit(0)
    }
}
