import Foundation
import ScreenTimeModel
import SystemKit

extension DeviceOS {
    /// ManagedSettings changed: the ground truth of what is shielded. An app in use that becomes
    /// shielded is covered by its shield at once.
    mutating func shieldsChanged(_ union: ShieldUnion, _ out: inout [OSEffect]) {
        if refusesManagedSettings, union != ShieldUnion() {
            ignoreUnauthorizedShields(union, &out)
            return
        }
        shield = union
        let apps = union.applications.sorted().joined(separator: ",")
        if apps != recordedShieldApps {
            recordedShieldApps = apps
            var f = ["apps": apps]
            let policies = union.applicationCategoryPolicies.map(\.policy.rawValue).sorted()
            if !policies.isEmpty { f["categoryPolicies"] = policies.joined(separator: ",") }
            out.append(.record("shields", f))
        }
        switch frontmost {
        case .app(let app, _, let label) where isShielded(app):
            showShield(app, label: label, &out)
        case .shield(let app, _) where !isShielded(app):
            out.append(.record("shield_lifted", ["app": app]))
            frontmost = .home
        default:
            break
        }
    }

    /// ManagedSettings' `application.blockedApplications` changed. Apple: the applications "the
    /// user can't open"; one in use when it becomes blocked is closed (the user is sent home), as a
    /// deleted app would be — Apple does not say, this is our reading (PROTOCOL.md §7.2).
    mutating func blockedApplicationsChanged(_ apps: Set<String>, _ out: inout [OSEffect]) {
        if refusesManagedSettings, !apps.isEmpty {
            out.append(.record("blocked_applications_ignored", ["apps": apps.sorted().joined(separator: ","), "why": "not authorized"]))
            return
        }
        guard apps != blockedApplications else { return }
        blockedApplications = apps
        out.append(.record("blocked_applications", ["apps": apps.sorted().joined(separator: ",")]))
        switch frontmost {
        case .app(let app, _, _) where apps.contains(app), .shield(let app, _) where apps.contains(app):
            frontmost = .home
            out.append(.record("app_closed", ["app": app, "why": "blocked"]))
        default:
            break
        }
    }

    mutating func user(_ event: UserEvent, _ out: inout [OSEffect]) {
        switch event {
        case .useApp(let app, _, let label) where blockedApplications.contains(app):
            // A blocked app does not open: no use is counted, no shield shows.
            out.append(.record("app_blocked", label.merging(["app": app]) { a, _ in a }))
        case .useApp(let app, let seconds, let label):
            if case .foreground = host { leaveHost(&out) }
            thresholdsAtFirstUse(app: app, label: label, &out)
            if isShielded(app) {
                showShield(app, label: label, &out)
            } else {
                frontmost = .app(app, until: now + max(0, seconds), label: label)
                var f = label
                f["app"] = app
                f["seconds"] = String(seconds)
                out.append(.record("app_in_use", f))
            }
        case .pressShieldButton(let action, let label):
            guard case .shield(let app, let shownLabel) = frontmost else {
                out.append(.record("shield_button_unavailable", label.merging(["action": action.rawValue]) { a, _ in a }))
                return
            }
            let l = shownLabel.merging(label) { _, new in new }
            if configuration.extensionPoints.contains(.shieldAction) {
                makeCall(.shieldAction(action, application: app), label: l.merging(["app": app]) { a, _ in a }, &out)
            } else {
                // Without a shield-action extension the system's shield closes the app.
                frontmost = .home
                out.append(.record("shield_closed_app", ["app": app, "why": "no shield-action extension"]))
            }
        case .openHost:
            thresholdsAtFirstUse(app: "host", label: [:], &out)
            openHost(&out)
        case .leaveHost:
            leaveHost(&out)
        case .forceQuitHost:
            if host != .notRunning { out.append(.terminateHost) }
            host = .notRunning
            if frontmost == .host { frontmost = .home }
            out.append(.record("host_state", ["state": "notRunning", "why": "force quit"]))
        case .tapNotification(let identifier, let action, let foreground):
            tapNotification(identifier, action: action, foreground: foreground, &out)
        case .openURL(let url):
            openURL(url, &out)
        }
    }

    mutating func showShield(_ app: String, label: [String: String], _ out: inout [OSEffect]) {
        frontmost = .shield(app, label: label)
        var f = label
        f["app"] = app
        out.append(.record("shield_shown", f))
        if configuration.extensionPoints.contains(.shieldConfiguration) {
            makeCall(.shieldConfiguration(application: app), label: f, &out)
        }
    }

    /// The shield-action extension answered (or died first).
    mutating func callEnded(_ delivery: Int, completed: Bool, response: ShieldActionResponse?, _ out: inout [OSEffect]) {
        guard let call = shieldCalls.removeValue(forKey: delivery) else { return }
        var f = call.label
        f["app"] = call.app
        f["delivery"] = String(delivery)
        guard completed, let response else {
            out.append(.record("shield_action_lost", f))
            return
        }
        f["response"] = response.rawValue
        switch response {
        case .close:
            if case .shield(let app, _) = frontmost, app == call.app { frontmost = .home }
            out.append(.record("shield_closed_app", f))
        case .defer:
            out.append(.record("shield_redrawn", f))
            if case .shield(let app, _) = frontmost, app == call.app, configuration.extensionPoints.contains(.shieldConfiguration) {
                makeCall(.shieldConfiguration(application: app), label: call.label.merging(["app": app]) { a, _ in a }, &out)
            }
        case .none:
            out.append(.record("shield_unchanged", f))
        }
    }

    /// The app in use was used for as long as the user meant: back to the home screen.
    mutating func endFinishedUse(_ out: inout [OSEffect]) {
        guard case .app(let app, let until, _) = frontmost, until <= now else { return }
        frontmost = .home
        out.append(.record("app_left", ["app": app]))
    }
}
