import AppGroup
import Foundation
import History
import ScreenTimeModel
import ScreenTimeOS
import Supervision
import OSFiles
import SystemKit

/// The apps' inboxes (EMULATED-IOS.md §7.7) as the harness writes them: one `AppInbox` per role, opened
/// at its first message, and the sequence number every message carries.
struct AppInboxes {
    var open: [String: AppInbox] = [:]
    var nextSeq = 1
    /// Whether the user's retry choice (`user.retry`) decided the fate of a tap the app died in:
    /// it tapped again, or it lost the tap for not tapping again (`harness explore` then tries
    /// the other way).
    var retryChoiceDecided = false
    /// The user's taps not yet known to be handled, by seq (InterruptedTaps.swift).
    var taps: [Int: SentTap] = [:]
    /// Per role's trace, how far it has been read for `user_input` / `user_input_done`.
    var traceOffsets: [String: UInt64] = [:]
    /// Seqs an app has taken in (`user_input`) and not finished (`user_input_done`).
    var started: Set<Int> = []
    /// Per role, the user's last taps (with their seqs), oldest first: what a pack's repeat may
    /// build on (`SystemPack.repeatTaps`).
    var recent: [String: [AppMessage]] = [:]

    struct SentTap {
        var role: String
        var message: AppMessage
        /// The seq of the tap this one repeats (the user taps again at most once).
        var retryOf: Int?
    }
}

/// The user the run plays on the device, as the pack's workload asks (`UserMove`): the move is
/// recorded, then its steps performed — taps go to the apps' inboxes; everything else is shown
/// to the emulated iOS, which decides what follows.
extension LiveRun: UserScreen {
    /// Records `move` (`user_action`), then performs its steps in order.
    func play(_ move: UserMove) {
        record(move.action, move.fields)
        for step in move.steps { perform(step) }
    }

    func perform(_ step: UserStep) {
        switch step {
        case .tap(let role, let message): tap(in: role, message)
        case .openHost: openHost()
        case .leaveHost: leaveHost()
        case .forceQuitHost: forceQuitHost()
        case .useApp(let app, let seconds, let label): useApp(app, seconds: seconds, label: label)
        case .pressShield(let button, let label): pressShieldButton(button, label: label)
        case .openURL(let url): openURL(url)
        case .tapNotification(let identifier, let action): tapNotification(identifier, action: action)
        case .deleteApp(let app): deleteApp(app)
        case .installApp(let app): installApp(app)
        case .visitWebsite(let domain, let adult): visitWebsite(domain, adult: adult)
        case .deliver(let call, let label): deliver(call, label: label)
        case .note(let action, let fields): record(action, fields)
        }
    }

    func record(_ action: String, _ fields: [String: String]) {
        var f = fields
        f["action"] = action
        rec.record(.userAction, f)
    }

    func tap(in role: String, _ message: AppMessage) {
        // A tap in the host means the user has it open: one iOS suspended or terminated (force
        // quit, reboot) is opened first. (One the nemesis killed comes back on its own schedule.)
        // (Under virtual time the SIGCONT waits until the whole action is in place: `resumesHeld`.)
        if role == hostRole, let entry = processes.table.entry(role), entry.heldDownByOS || entry.osSuspended { openHost() }
        guard let seq = sendToInbox(role, message) else { return }
        inboxes.taps[seq] = .init(role: role, message: message)
        var sent = message
        sent.seq = seq
        inboxes.recent[role, default: []].append(sent)
        if inboxes.recent[role, default: []].count > InterruptedTapsBound.earlierTaps { inboxes.recent[role]?.removeFirst() }
    }

    /// Writes `message` to the role's inbox (EMULATED-IOS.md §7.7) without opening anything: the OS's
    /// own messages (a notification response) arrive however iOS launched the app. Its seq, or nil
    /// when it could not be written (recorded).
    @discardableResult
    func sendToInbox(_ role: String, _ message: AppMessage) -> Int? {
        var m = message
        m.seq = inboxes.nextSeq
        inboxes.nextSeq += 1
        do {
            let inbox = try inboxes.open[role] ?? AppInbox(process: role, deviceRoot: root, center: center)
            inboxes.open[role] = inbox
            try inbox.send(m)
            return m.seq
        } catch {
            rec.record(.inboxError, ["target": role, "error": "\(error)"])
            return nil
        }
    }

    /// The user tapped a delivered notification: it leaves Notification Center and its response
    /// goes to the host's inbox (`notification_response`, EMULATED-IOS.md §7.5), which the host reads
    /// when it runs.
    func respond(toNotification identifier: String, action: String) {
        guard let host = hostRole else { return }
        do {
            guard let fields = try NotificationAuthority.tap(identifier, actionIdentifier: action, on: device) else {
                rec.record(.notificationTapUnavailable, ["identifier": identifier, "why": "not in delivered.json"])
                return
            }
            // The OS already launched or continued the host as the action asks (foreground or
            // background): not a user tap inside the app, which would foreground it.
            sendToInbox(host, AppMessage(action: NotificationResponseMessage.action, fields: fields))
        } catch {
            rec.record(.systemFileError, ["error": "\(error)"])
        }
    }

    var shieldedApplications: Set<String> { ManagedSettingsReader.shieldedApplications(deviceRoot: root) }

    func isMonitored(_ activity: String) -> Bool { emulated.os.isMonitored(activity) }

    func deliver(_ call: ExtensionCall, label: [String: String]) { osApply(.harnessCall(call, label: label)) }

    func useApp(_ bundleIdentifier: String, seconds: Double, label: [String: String]) {
        osApply(.user(.useApp(bundleIdentifier: bundleIdentifier, seconds: seconds, label: label)))
    }

    func pressShieldButton(_ action: ShieldAction, label: [String: String]) { osApply(.user(.pressShieldButton(action, label: label))) }

    func openHost() { osApply(.user(.openHost)) }

    func leaveHost() { osApply(.user(.leaveHost)) }

    func forceQuitHost() { osApply(.user(.forceQuitHost)) }

    func openURL(_ url: String) { osApply(.user(.openURL(url))) }

    func deleteApp(_ bundleIdentifier: String) { osApply(.user(.deleteApp(bundleIdentifier: bundleIdentifier))) }

    func installApp(_ bundleIdentifier: String) { osApply(.user(.installApp(bundleIdentifier: bundleIdentifier))) }

    func visitWebsite(_ domain: String, adult: Bool) { osApply(.user(.visitWebsite(domain: domain, adult: adult))) }

    var deliveredNotifications: [String] {
        // Requests due now are fired first, as the lock screen would show them.
        osScanNotifications()
        return ((try? NotificationAuthority.delivered(on: device)) ?? []).map(\.request.identifier)
    }

    func tapNotification(_ identifier: String, action: String) {
        osScanNotifications()
        osApply(.user(.tapNotification(identifier: identifier, action: action, foreground: notificationActionForegrounds(identifier, action: action))))
    }
}
