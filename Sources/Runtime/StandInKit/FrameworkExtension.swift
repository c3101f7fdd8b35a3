import AppGroup
import ArgumentParser
@_spi(ScreenTimeHarness) import DeviceActivity
import Foundation
@_spi(ScreenTimeHarness) import ManagedSettings
import ManagedSettingsUI
import StandInRuntime
import SystemKit

#if canImport(Glibc)
import Glibc
#endif

/// The principal object of an extension (what its Info.plist's `NSExtensionPrincipalClass`
/// names): an instance of the app's own subclass.
public enum ExtensionPrincipal {
    case monitor(DeviceActivityMonitor)
    case shieldAction(ShieldActionDelegate)
    case shieldConfiguration(ShieldConfigurationDataSource)

    public var point: ExtensionPoint {
        switch self {
        case .monitor: .deviceActivityMonitor
        case .shieldAction: .shieldAction
        case .shieldConfiguration: .shieldConfiguration
        }
    }
}

/// What a shield is over: an app or a web domain (with the category the OS filed it under, if
/// any), or — for a shield action only — a category.
public enum ShieldSubject: Sendable, Equatable {
    case application(String, category: String?)
    case webDomain(String, category: String?)
    case category(String)
}

/// One call of the OS into an extension, in the frameworks' terms. `ExtensionCall` (the runner's
/// vocabulary) converts to it; the frameworks' path adds web-domain and category shields.
public enum FrameworkCall: Sendable, Equatable {
    case monitor(MonitorCallback, activity: String, event: String?)
    case shieldAction(ShieldAction, subject: ShieldSubject)
    case shieldConfiguration(ShieldSubject)

    public init(_ call: ExtensionCall) {
        switch call {
        case .monitor(let c, let a, let e): self = .monitor(c, activity: a, event: e)
        case .shieldAction(let action, let app): self = .shieldAction(action, subject: .application(app, category: nil))
        case .shieldConfiguration(let app): self = .shieldConfiguration(.application(app, category: nil))
        }
    }

    public var point: ExtensionPoint {
        switch self {
        case .monitor: .deviceActivityMonitor
        case .shieldAction: .shieldAction
        case .shieldConfiguration: .shieldConfiguration
        }
    }

    public var callbackName: String {
        switch self {
        case .monitor(let c, _, _): c.rawValue
        case .shieldAction: "shieldAction"
        case .shieldConfiguration: "shieldConfiguration"
        }
    }

    /// `callback_begin`'s fields (besides `callback` and `delivery`).
    var traceFields: [String: String] {
        var f: [String: String] = [:]
        func subject(_ s: ShieldSubject) {
            switch s {
            case .application(let b, let c):
                f["app"] = b
                if let c { f["category"] = c }
            case .webDomain(let d, let c):
                f["webDomain"] = d
                if let c { f["category"] = c }
            case .category(let c): f["category"] = c
            }
        }
        switch self {
        case .monitor(_, let a, let e):
            f["activity"] = a
            if let e { f["event"] = e }
        case .shieldAction(let action, let s):
            f["action"] = action.rawValue
            subject(s)
        case .shieldConfiguration(let s): subject(s)
        }
        return f
    }
}

/// A shield configuration as the OS records it (trace line `shield_configuration`).
public struct ShieldConfigurationSummary: Sendable, Equatable {
    public var fields: [String: String]

    init(_ c: ShieldConfiguration) {
        var f: [String: String] = [:]
        func label(_ key: String, _ l: ShieldConfiguration.Label?) {
            guard let l else { return }
            f[key] = l.text
            f[key + "Color"] = l.color.description
        }
        label("title", c.title)
        label("subtitle", c.subtitle)
        label("primaryButton", c.primaryButtonLabel)
        label("secondaryButton", c.secondaryButtonLabel)
        if let i = c.icon { f["icon"] = i.description }
        if let b = c.backgroundColor { f["backgroundColor"] = b.description }
        if let b = c.primaryButtonBackgroundColor { f["primaryButtonBackgroundColor"] = b.description }
        if let s = c.backgroundBlurStyle { f["backgroundBlurStyle"] = s.rawValue }
        fields = f
    }
}

public enum FrameworkExtensionOutcome: Sendable, Equatable {
    /// A monitor callback returned.
    case called
    /// A shield action's completion handler was called with this response.
    case responded(ShieldActionResponse)
    /// A shield configuration was returned.
    case configuration(ShieldConfigurationSummary)
    /// The completion handler was not called within the bound.
    case completionNotCalled(waitedSeconds: Double)
    /// The principal does not receive this call (wrong extension point or subject).
    case mismatch(String)
}

/// The frameworks' extension entry point: hands one OS call to the app's principal object, the
/// way iOS calls an extension, and reports what it answered: the one extension path. It runs the
/// app's own `DeviceActivityMonitor`, `ShieldActionDelegate` or `ShieldConfigurationDataSource`
/// subclass — a seed's own code as written, or a class that hands the call to a pack's pure
/// machine through `ExtensionEnvironment`.
public enum FrameworkExtension {
    /// A shield action must call its completion handler within this (iOS ends an extension that
    /// never answers; the OS then applies nothing).
    public static let completionWallCapSeconds = 5.0

    /// Performs `call` on `principal` in this process (tests call it directly).
    public static func perform(_ call: FrameworkCall, on principal: ExtensionPrincipal, completionWallCapSeconds: Double = completionWallCapSeconds) -> FrameworkExtensionOutcome {
        switch (call, principal) {
        case (.monitor(let callback, let activity, let event), .monitor(let m)):
            let a = DeviceActivityName(activity)
            if [.eventDidReachThreshold, .eventWillReachThresholdWarning].contains(callback), event == nil {
                return .mismatch("\(callback.rawValue) needs an event name")
            }
            // The principal's code is the app's: `Date()` in it is device time (DeviceTime).
            DeviceTime.asAppCode {
                switch callback {
                case .intervalDidStart: m.intervalDidStart(for: a)
                case .intervalDidEnd: m.intervalDidEnd(for: a)
                case .intervalWillStartWarning: m.intervalWillStartWarning(for: a)
                case .intervalWillEndWarning: m.intervalWillEndWarning(for: a)
                case .eventDidReachThreshold: m.eventDidReachThreshold(DeviceActivityEvent.Name(event ?? ""), activity: a)
                case .eventWillReachThresholdWarning: m.eventWillReachThresholdWarning(DeviceActivityEvent.Name(event ?? ""), activity: a)
                }
            }
            return .called
        case (.shieldAction(let action, let subject), .shieldAction(let d)):
            let a = action
            let box = ResponseBox()
            let done: (ShieldActionResponse) -> Void = { box.set($0) }
            DeviceTime.asAppCode {
                switch subject {
                case .application(let b, _): d.handle(action: a, for: ApplicationToken(bundleIdentifier: b), completionHandler: done)
                case .webDomain(let w, _): d.handle(action: a, for: WebDomainToken(domain: w), completionHandler: done)
                case .category(let c): d.handle(action: a, for: ActivityCategoryToken(categoryIdentifier: c), completionHandler: done)
                }
            }
            guard let r = box.wait(seconds: completionWallCapSeconds) else { return .completionNotCalled(waitedSeconds: completionWallCapSeconds) }
            switch r {
            case .none: return .responded(.none)
            case .close: return .responded(.close)
            case .defer: return .responded(.defer)
            }
        case (.shieldConfiguration(let subject), .shieldConfiguration(let s)):
            func category(_ c: String?) -> ActivityCategory? {
                c.map { ActivityCategory(token: ActivityCategoryToken(categoryIdentifier: $0), localizedDisplayName: $0) }
            }
            switch subject {
            case .application(let b, let c):
                let app = Application(bundleIdentifier: b, token: ApplicationToken(bundleIdentifier: b), localizedDisplayName: nil)
                let cat = category(c)
                let config = DeviceTime.asAppCode { cat.map { s.configuration(shielding: app, in: $0) } ?? s.configuration(shielding: app) }
                return .configuration(ShieldConfigurationSummary(config))
            case .webDomain(let w, let c):
                let site = WebDomain(domain: w, token: WebDomainToken(domain: w))
                let cat = category(c)
                let config = DeviceTime.asAppCode { cat.map { s.configuration(shielding: site, in: $0) } ?? s.configuration(shielding: site) }
                return .configuration(ShieldConfigurationSummary(config))
            case .category:
                return .mismatch("a shield configuration is for an app or a web domain, not a category")
            }
        default:
            return .mismatch("a \(principal.point.rawValue) extension does not receive \(call.callbackName)")
        }
    }

    /// One extension process (or an in-process stand-in, which unwinds instead of exiting): trace `callback_begin`, perform, trace the answer (`responded` with
    /// `response`, or `shield_configuration` with its labels), trace `callback_end`, exit —
    /// 0 when the call was answered, 1 when it was not (no completion, wrong extension).
    public static func run(_ call: FrameworkCall, delivery: String, context: StandInContext, principal: ExtensionPrincipal) throws -> Never {
        var begin = call.traceFields
        begin["callback"] = call.callbackName
        begin["delivery"] = delivery
        DeviceTime.install(context.clock)
        context.trace.log("callback_begin", begin)
        let outcome = perform(call, on: principal)
        var code: Int32 = 0
        switch outcome {
        case .called: break
        case .responded(let r):
            // The shield action's answer (a seed's own `completionHandler(.none)` too): a crash
            // point right before iOS gets it (CRASH-POINTS.md §11).
            CrashPoints.passNonThrowing("respond")
            context.trace.log("responded", ["response": r.rawValue, "delivery": delivery])
        case .configuration(let c):
            var f = c.fields
            f["delivery"] = delivery
            context.trace.log("shield_configuration", f)
        case .completionNotCalled(let s):
            context.trace.log("extension_error", ["delivery": delivery, "error": "completion handler not called within \(s) s"])
            code = 1
        case .mismatch(let why):
            context.trace.log("extension_error", ["delivery": delivery, "error": why])
            code = 1
        }
        context.trace.log("callback_end", ["callback": call.callbackName, "delivery": delivery])
        try InProcessStandIns.exit(code)
    }
}

/// The arguments the OS starts an extension with (`ExtensionCall.arguments(delivery:)`), plus
/// `--web-domain` and `--category` (EMULATED-IOS.md §7.6).
public struct FrameworkCallOptions: ParsableArguments {
    @Option(help: "DeviceActivityMonitor callback, e.g. intervalDidStart.") public var callback: MonitorCallback?
    @Option(help: "The DeviceActivityName of a monitor callback.") public var activity: String?
    @Option(help: "The DeviceActivityEvent.Name of an event callback.") public var event: String?
    @Option(help: "Shield action: primaryButtonPressed or secondaryButtonPressed.") public var action: ShieldAction?
    @Option(help: "The shielded application (bundle id).") public var app: String?
    @Option(name: .customLong("web-domain"), help: "The shielded web domain.") public var webDomain: String?
    @Option(help: "The category of the shielded app or site, or the shielded category (shield action).") public var category: String?
    @Option(help: "The harness's id for this delivery (traced).") public var delivery: String = ""

    public init() {}

    /// The plain forms the harness writes (`ExtensionCall.arguments`, see `PlainCommandLine`);
    /// nil for anything else — help, `--name=value`, a bad callback name — which the caller hands
    /// to ArgumentParser, so every command line is understood exactly as before.
    public static func plain(_ args: [String]) -> FrameworkCallOptions? {
        guard let line = PlainCommandLine(args, options: plainOptionNames) else { return nil }
        let values = line.values
        var o = FrameworkCallOptions()
        if let v = values["--callback"] {
            guard let c = MonitorCallback(argument: v) else { return nil }
            o.callback = c
        } else {
            o.callback = nil
        }
        if let v = values["--action"] {
            guard let a = ShieldAction(argument: v) else { return nil }
            o.action = a
        } else {
            o.action = nil
        }
        o.activity = values["--activity"]
        o.event = values["--event"]
        o.app = values["--app"]
        o.webDomain = values["--web-domain"]
        o.category = values["--category"]
        o.delivery = values["--delivery"] ?? ""
        return o
    }

    static let plainOptionNames: Set<String> = ["--callback", "--activity", "--event", "--action", "--app", "--web-domain", "--category", "--delivery"]

    public func call(for point: ExtensionPoint) throws -> FrameworkCall {
        func subject(allowCategory: Bool) throws -> ShieldSubject {
            if let app { return .application(app, category: category) }
            if let webDomain { return .webDomain(webDomain, category: category) }
            if allowCategory, let category { return .category(category) }
            throw ValidationError(allowCategory ? "--app, --web-domain or --category is required" : "--app or --web-domain is required")
        }
        switch point {
        case .deviceActivityMonitor:
            guard let callback, let activity else { throw ValidationError("--callback and --activity are required") }
            return .monitor(callback, activity: activity, event: event)
        case .shieldAction: return .shieldAction(action ?? .primaryButtonPressed, subject: try subject(allowCategory: true))
        case .shieldConfiguration: return .shieldConfiguration(try subject(allowCategory: false))
        }
    }
}

/// An extension role's command: its options are the framework call. `plainCommand` builds one
/// from the harness's own command line without ArgumentParser (`FrameworkCallOptions.plain`).
public protocol FrameworkCallCommand: ParsableCommand {
    var call: FrameworkCallOptions { get set }
}

extension FrameworkCallCommand {
    /// The command for the plain arguments after its role's name, or nil (then ArgumentParser).
    public static func plainCommand(_ args: [String]) -> Self? {
        FrameworkCallOptions.plain(args).map { o in
            var c = Self()
            c.call = o
            return c
        }
    }
}

/// The one response a completion handler gives, across threads.
private final class ResponseBox: @unchecked Sendable {
    private let cond = NSCondition()
    private var value: ShieldActionResponse?

    func set(_ r: ShieldActionResponse) {
        cond.lock()
        if value == nil { value = r }  // Apple: the first call counts.
        cond.signal()
        cond.unlock()
    }

    func wait(seconds: Double) -> ShieldActionResponse? {
        let deadline = Date().addingTimeInterval(seconds)
        cond.lock()
        defer { cond.unlock() }
        while value == nil && cond.wait(until: deadline) {}
        return value
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
