import AppGroup
import FocusPledge
import Foundation
import StandInKit
import SystemKit

/// The host app (Flutter app + NativeBridge) as a process: turns what the run loop hands it into
/// `HostApp` events. Everything the process does is the machine's; this only translates.
public final class HostAppAdapter: AppAdapter {
    var machine: HostApp

    public init(variant: Variant) {
        machine = HostApp(variant: variant)
    }

    /// Extensions post it after writing a failure; the seed only polls (see the pack README).
    public var observedNotifications: [String] { [FocusPledgeKeys.failureNotification] }

    public func handle(_ input: AppInput, now: Date, store: () -> [String: PropertyListValue]) -> [Effect] {
        guard let event = event(for: input, now: now, store: store) else {
            if case .user(let m) = input {
                return [.trace("inbox_malformed", ["seq": String(m.seq), "why": "cannot read action \(m.action) with \(m.fields)"])]
            }
            return []
        }
        return machine.handle(event)
    }

    func event(for input: AppInput, now: Date, store: () -> [String: PropertyListValue]) -> HostApp.Event? {
        switch input {
        case .launched:
            return .launched(now: now, store: store())
        case .user(let m):
            switch m.action {
            case FocusPledgeActions.selectApps:
                return .userSelectedApps(m.list)
            case FocusPledgeActions.startSession:
                guard let sessionId = m["sessionId"], let minutes = m["durationMinutes"].flatMap({ Int($0) }) else { return nil }
                return .userStartsSession(sessionId: sessionId, durationMinutes: minutes, now: now, store: store())
            case FocusPledgeActions.stopSession:
                return .userStopsSession(now: now)
            default:
                return nil
            }
        case .notification(let name):
            return name == FocusPledgeKeys.failureNotification ? .failureNotified(now: now, store: store()) : nil
        case .timer(let name):
            if name == HostApp.pollTimer { return .pollTick(now: now, store: store()) }
            if name == HostApp.sessionTimer { return .sessionTimerFired(now: now, store: store()) }
            if let id = HostApp.retryRequestId(timer: name) { return .retryTimerFired(requestId: id, now: now) }
            return nil
        case .httpReply(let id, let reply):
            return .httpReply(requestId: id, reply)
        }
    }
}

/// The DeviceActivityMonitor extension: one callback per process.
public struct MonitorAdapter: ExtensionAdapter {
    public let variant: Variant
    public init(variant: Variant) { self.variant = variant }

    public func handle(_ call: ExtensionCall, now: Date, store: () -> [String: PropertyListValue]) -> [Effect] {
        guard case .monitor(let callback, let activity, let event) = call else { return [] }
        var machine = MonitorExtension(variant: variant)
        switch callback {
        case .intervalDidStart:
            return machine.handle(.intervalDidStart(activity: activity))
        case .intervalDidEnd:
            return machine.handle(.intervalDidEnd(activity: activity, now: now, store: store()))
        case .eventDidReachThreshold:
            return machine.handle(.eventDidReachThreshold(
                event: event ?? FocusPledgeKeys.thresholdEventName, activity: activity, now: now, store: store()))
        case .intervalWillStartWarning, .intervalWillEndWarning, .eventWillReachThresholdWarning:
            // The seed's extension does not override these; DeviceActivityMonitor's do nothing.
            return []
        }
    }
}

/// The ShieldAction extension: one button press per process.
public struct ShieldActionAdapter: ExtensionAdapter {
    public let variant: Variant
    public init(variant: Variant) { self.variant = variant }

    public func handle(_ call: ExtensionCall, now: Date, store: () -> [String: PropertyListValue]) -> [Effect] {
        guard case .shieldAction(let action, let application) = call else { return [] }
        var machine = ShieldActionExtension(variant: variant)
        let pressed: ShieldActionExtension.Action = action == .secondaryButtonPressed ? .secondaryButtonPressed : .primaryButtonPressed
        return machine.handle(.handle(action: pressed, application: application, now: now, store: store()))
    }
}
