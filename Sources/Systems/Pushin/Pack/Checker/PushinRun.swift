import HarnessKit
import History
import Pushin

/// What a Pushin run's history says, read once for every rule: the shield extension's workout
/// signals (its traced App Group writes), its calls and answers, the prompts the user got
/// (notifications shown by iOS, in-app prompts), the notification taps, the host's foreground
/// spells, iOS's notification permission and the emergency-unlock counter. From the history alone.
struct PushinRun {
    /// One workout signal: the shield extension stored `pending_notification_id`.
    struct Signal {
        var id: String
        var t: Double
        var mono: Int64
        var pid: Int32
        /// `notification_expires_at` as written by the same call (the seed's +300 s when the call
        /// died before writing it).
        var expiresAt: Double
        var line: HistoryEvent
    }

    /// A workout prompt the user got.
    struct Prompt {
        enum Kind: String { case notification, inApp = "in-app" }
        var id: String
        var t: Double
        var mono: Int64
        var kind: Kind
        var line: HistoryEvent
    }

    /// One call of the shield-action extension (one process).
    struct ExtensionCall {
        var pid: Int32
        var action: String
        var begin: HistoryEvent
        var responded: HistoryEvent?
        var signalIds: [String] = []
        /// `emergency_unlocks_remaining` values this call wrote, in order.
        var unlockWrites: [(value: Int, line: HistoryEvent)] = []
    }

    var signals: [Signal] = []
    var prompts: [Prompt] = []
    var calls: [ExtensionCall] = []
    /// Notifications a workout press's own shield-action call added, each with when it did
    /// (`notification_added`'s mono; hardened H9 adds it before the signal: a call killed in
    /// between, or a torn write of the signal, leaves the notification without one).
    var workoutCallAdds: [String: Int64] = [:]
    /// Every write of `emergency_unlocks_remaining`, any process, in history order.
    var unlockWrites: [(value: Int, pid: Int32, process: String, line: HistoryEvent)] = []
    /// iOS's `notification_tapped` lines.
    var taps: [HistoryEvent] = []
    var workoutScreens: [HistoryEvent] = []
    /// Host lines (any), for "did the host run after …".
    var hostLines: [HistoryEvent] = []
    /// iOS's answers to the notification prompt (`authorization kind=notifications`).
    var notificationAuthorizations: [HistoryEvent] = []
    let index: HistoryIndex
    var finished: HistoryEvent? { index.runFinished }

    static let host = "host-app"
    static let shieldExtension = "shield-action-extension"
    /// The shield button that asks for a workout (the primary one, A1).
    static let workoutAction = "primaryButtonPressed"

    init(_ history: [HistoryEvent]) {
        index = HistoryIndex(history)
        var callIndex: [Int32: Int] = [:]
        var pendingExpiry: [Int32: Int] = [:]  // pid → index of its signal still missing an expiry
        for e in index.events {
            switch (e.process, e.event) {
            case (Self.shieldExtension, "callback_begin"):
                callIndex[e.pid] = calls.count
                calls.append(ExtensionCall(pid: e.pid, action: e["action"] ?? "", begin: e))
            case (Self.shieldExtension, "responded"):
                if let i = callIndex[e.pid] { calls[i].responded = e }
            case (Self.shieldExtension, "notification_added"):
                if let i = callIndex[e.pid], calls[i].action == Self.workoutAction, let id = e["identifier"] {
                    workoutCallAdds[id] = workoutCallAdds[id] ?? e.mono
                }
            case (_, "defaults_set") where e.process == Self.shieldExtension || e.process == Self.host:
                let w = DefaultsWrite(e)
                if let v = w[PushinKeys.emergencyUnlocksRemaining] {
                    let value = Int(v) ?? Int.min
                    unlockWrites.append((value, e.pid, e.process, e))
                    if e.process == Self.shieldExtension, let i = callIndex[e.pid] { calls[i].unlockWrites.append((value, e)) }
                }
                guard e.process == Self.shieldExtension else { break }
                if let id = w[PushinKeys.pendingNotificationId] {
                    let expires = w[PushinKeys.notificationExpiresAt].flatMap(Double.init)
                    signals.append(Signal(id: id, t: e.t, mono: e.mono, pid: e.pid, expiresAt: expires ?? e.t + PushinKeys.expirySeconds, line: e))
                    if expires == nil { pendingExpiry[e.pid] = signals.count - 1 }
                    if let i = callIndex[e.pid] { calls[i].signalIds.append(id) }
                } else if let v = w[PushinKeys.notificationExpiresAt].flatMap(Double.init), let i = pendingExpiry.removeValue(forKey: e.pid) {
                    signals[i].expiresAt = v
                }
            case ("harness", "notification_delivered"):
                if let id = e["identifier"] { prompts.append(Prompt(id: id, t: e.t, mono: e.mono, kind: .notification, line: e)) }
            case (Self.host, "in_app_prompt"):
                if let id = e["id"] { prompts.append(Prompt(id: id, t: e.t, mono: e.mono, kind: .inApp, line: e)) }
            case ("harness", "notification_tapped"): taps.append(e)
            case ("harness", "authorization") where e["kind"] == "notifications": notificationAuthorizations.append(e)
            default: break
            }
            if e.process == Self.host {
                hostLines.append(e)
                if e.event == "workout_screen_shown" { workoutScreens.append(e) }
            }
        }
    }

    func signal(_ id: String) -> Signal? { signals.first { $0.id == id } }

    /// Whether iOS showed notifications at `mono` (the prompt was answered authorized, provisional or ephemeral).
    func notificationsGranted(at mono: Int64) -> Bool {
        guard let last = notificationAuthorizations.last(where: { $0.mono <= mono }) else { return false }
        return HostApp.granted(last["status"] ?? "")
    }

    /// The host's state (`foreground`, `background`, `suspended`, `notRunning`) at `mono`;
    /// `notRunning` before any.
    func hostState(at mono: Int64) -> String { index.hostState(atMono: mono) }

    /// The first `host_state foreground` at or after `from` and at or before device time `until`,
    /// or the foreground spell already going on at `from`.
    func hostForeground(from: Int64, until: Double) -> HistoryEvent? {
        if hostState(at: from) == "foreground" { return index.hostStates.last { $0.mono <= from } }
        return index.hostStates.first { $0.mono >= from && $0.t <= until && $0["state"] == "foreground" }
    }
}
