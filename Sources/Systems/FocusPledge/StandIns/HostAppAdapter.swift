import AppGroup
import FocusPledge
import Foundation
import StandInKit
import SystemKit

/// The host app (Flutter app + NativeBridge) as a process: turns what the run loop hands it into
/// `HostApp` events. Everything the process does is the machine's; this only translates.
public final class HostAppAdapter: AppAdapter {
    var machine: HostApp
    /// The device's time zone (`Calendar.current`'s), read when the user starts a session.
    let timeZone: () -> TimeZone
    /// FamilyControls' `AuthorizationCenter.shared.authorizationStatus`, read when the user starts a session.
    let screenTime: () -> String
    /// As-written: the seed's own `getAuthorizationStatus` and `requestAuthorization` (A16), run
    /// before the app picker; their answers as trace lines.
    let askAsWritten: () -> [Effect]

    public init(
        variant: Variant, timeZone: @escaping () -> TimeZone, screenTime: @escaping () -> String, askAsWritten: @escaping () -> [Effect]
    ) {
        machine = HostApp(variant: variant)
        self.timeZone = timeZone
        self.screenTime = screenTime
        self.askAsWritten = askAsWritten
    }

    /// hardened's extensions post it after writing a failure; the seed only polls (README, A2).
    public var observedNotifications: [String] { [FocusPledgeKeys.failureNotification] }

    public func handle(_ input: AppInput, now: Date, store: () -> [String: PropertyListValue]) -> [Effect] {
        guard let event = event(for: input, now: now, store: store) else {
            if case .user(let m) = input {
                return [.trace("inbox_malformed", ["seq": String(m.seq), "why": "cannot read action \(m.action) with \(m.fields)"])]
            }
            return []
        }
        if case .userSelectedApps = event, machine.variant == .asWritten {
            // Seed: "Authorization flow — Call `requestAuthorization`", then "App picker" (A16).
            return askAsWritten() + machine.handle(event)
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
                let tappedAt = m["tappedAt"].flatMap(Double.init).map { Date(timeIntervalSince1970: $0) }
                return .userStartsSession(
                    sessionId: sessionId, durationMinutes: minutes, tappedAt: tappedAt, now: now, store: store(), timeZone: timeZone(),
                    screenTime: machine.variant == .hardened ? screenTime() : nil)
            case FocusPledgeActions.stopSession:
                return .userStopsSession(now: now, store: store())
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
        case .effectFailed(let failure):
            return .effectFailed(failure)
        case .authorization(let answer) where answer.kind == HostApp.screenTimeRequest.kind:
            // hardened may have a start waiting for this answer (H8); as-written reads nothing here.
            guard machine.variant == .hardened else { return .screenTimeAuthorization(granted: answer.granted, status: answer.status) }
            return .screenTimeAuthorization(granted: answer.granted, status: answer.status, now: now, store: store())
        default:
            // Seed 000's host reacts to none of iOS's other messages (lifecycle, deep links,
            // notification responses, time changes): it polls (README, A9).
            return nil
        }
    }
}
