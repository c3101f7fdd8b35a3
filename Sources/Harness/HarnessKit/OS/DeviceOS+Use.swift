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
            out.append(.record(.shields, f))
        }
        switch frontmost {
        case .app(let app, _, let label) where isShielded(app):
            showShield(app, label: label, &out)
        case .shield(let app, _) where !isShielded(app):
            out.append(.record(.shieldLifted, ["app": app]))
            frontmost = .home
        default:
            break
        }
    }

    /// ManagedSettings' `application.blockedApplications` changed. Apple: the applications "the
    /// user can't open"; one in use when it becomes blocked is closed (the user is sent home), as a
    /// deleted app would be — Apple does not say, this is our reading (EMULATED-IOS.md §7.2).
    mutating func blockedApplicationsChanged(_ apps: Set<String>, _ out: inout [OSEffect]) {
        if refusesManagedSettings, !apps.isEmpty {
            out.append(.record(.blockedApplicationsIgnored, ["apps": apps.sorted().joined(separator: ","), "why": "not authorized"]))
            return
        }
        guard apps != blockedApplications else { return }
        blockedApplications = apps
        out.append(.record(.blockedApplications, ["apps": apps.sorted().joined(separator: ",")]))
        switch frontmost {
        case .app(let app, _, _) where apps.contains(app), .shield(let app, _) where apps.contains(app):
            frontmost = .home
            out.append(.record(.appClosed, ["app": app, "why": "blocked"]))
        default:
            break
        }
    }

    /// Every store's settings beyond the shield changed: what the OS enforces of them when the user
    /// removes or installs an app or visits a website. Not applied while the app is not approved
    /// for FamilyControls, as the shield and blocked applications are not.
    mutating func managedSettingsChanged(_ union: ManagedSettingsUnion, _ out: inout [OSEffect]) {
        let previous = managedSettingsRead
        managedSettingsRead = union
        if union.blockedApplications != previous.blockedApplications { blockedApplicationsChanged(union.blockedApplications, &out) }
        guard refusesManagedSettings else {
            managedSettings = union
            return
        }
        // The blocked applications said their own `blocked_applications_ignored`.
        var beyond = union.application
        beyond.blockedApplications = nil
        if beyond != ApplicationSettingsRecord() || !union.webContentFilters.isEmpty {
            out.append(.record(.managedSettingsIgnored, ["why": "not authorized"]))
        }
        managedSettings = ManagedSettingsUnion()
    }

    /// The user deletes an app from the home screen. Apple: `denyAppRemoval` — "whether the user
    /// can remove apps"; refused while any store sets it. A deleted app is closed if in use, and
    /// does not open until installed again.
    mutating func deleteApp(_ app: String, _ out: inout [OSEffect]) {
        if managedSettings.application.denyAppRemoval == true {
            out.append(.record(.appRemovalDenied, ["app": app]))
            return
        }
        guard !deletedApplications.contains(app) else {
            out.append(.record(.appNotInstalled, ["app": app, "why": "delete"]))
            return
        }
        deletedApplications.insert(app)
        switch frontmost {
        case .app(let a, _, _) where a == app, .shield(let a, _) where a == app:
            frontmost = .home
        default:
            break
        }
        out.append(.record(.appDeleted, ["app": app]))
    }

    /// The user installs an app. Apple: `denyAppInstallation` — "whether the user can install
    /// apps"; refused while any store sets it.
    mutating func installApp(_ app: String, _ out: inout [OSEffect]) {
        if managedSettings.application.denyAppInstallation == true {
            out.append(.record(.appInstallDenied, ["app": app]))
            return
        }
        deletedApplications.remove(app)
        out.append(.record(.appInstalled, ["app": app]))
    }

    /// The user opens a website in Safari. Blocked when any store's `webContent.blockedByFilter`
    /// blocks the domain (each store's filter on its own: one store's exceptions do not lift
    /// another's block), or a store shields the domain (`shield.webDomains`). A web domain's
    /// shield is recorded, not drawn: the shield-configuration extension is not called for web
    /// domains (EMULATED-IOS.md §7.2).
    mutating func visitWebsite(_ domain: String, adult: Bool, _ out: inout [OSEffect]) {
        let domain = domain.lowercased()
        if managedSettings.webContentFilters.contains(where: { $0.blocks(domain: domain, adult: adult) }) {
            out.append(.record(.websiteBlocked, ["domain": domain, "by": "webContent"]))
        } else if shield.webDomains.contains(where: { domain == $0 || domain.hasSuffix("." + $0) }) {
            out.append(.record(.websiteBlocked, ["domain": domain, "by": "shield"]))
        } else {
            out.append(.record(.websiteVisited, ["domain": domain]))
        }
    }

    mutating func user(_ event: UserEvent, _ out: inout [OSEffect]) {
        switch event {
        case .useApp(let app, _, let label) where deletedApplications.contains(app):
            out.append(.record(.appNotInstalled, label.merging(["app": app]) { a, _ in a }))
        case .useApp(let app, _, let label) where blockedApplications.contains(app):
            // A blocked app does not open: no use is counted, no shield shows.
            out.append(.record(.appBlocked, label.merging(["app": app]) { a, _ in a }))
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
                out.append(.record(.appInUse, f))
            }
        case .pressShieldButton(let action, let label):
            guard case .shield(let app, let shownLabel) = frontmost else {
                out.append(.record(.shieldButtonUnavailable, label.merging(["action": action.rawValue]) { a, _ in a }))
                return
            }
            let l = shownLabel.merging(label) { _, new in new }
            if configuration.extensionPoints.contains(.shieldAction) {
                makeCall(.shieldAction(action, application: app), label: l.merging(["app": app]) { a, _ in a }, &out)
            } else {
                // Without a shield-action extension the system's shield closes the app.
                frontmost = .home
                out.append(.record(.shieldClosedApp, ["app": app, "why": "no shield-action extension"]))
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
            out.append(.record(.hostState, ["state": "notRunning", "why": "force quit"]))
        case .tapNotification(let identifier, let action, let foreground):
            tapNotification(identifier, action: action, foreground: foreground, &out)
        case .openURL(let url):
            openURL(url, &out)
        case .deleteApp(let app):
            deleteApp(app, &out)
        case .installApp(let app):
            installApp(app, &out)
        case .visitWebsite(let domain, let adult):
            visitWebsite(domain, adult: adult, &out)
        }
    }

    mutating func showShield(_ app: String, label: [String: String], _ out: inout [OSEffect]) {
        frontmost = .shield(app, label: label)
        var f = label
        f["app"] = app
        out.append(.record(.shieldShown, f))
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
            out.append(.record(.shieldActionLost, f))
            return
        }
        f["response"] = response.rawValue
        switch response {
        case .close:
            if case .shield(let app, _) = frontmost, app == call.app { frontmost = .home }
            out.append(.record(.shieldClosedApp, f))
        case .defer:
            out.append(.record(.shieldRedrawn, f))
            if case .shield(let app, _) = frontmost, app == call.app, configuration.extensionPoints.contains(.shieldConfiguration) {
                makeCall(.shieldConfiguration(application: app), label: call.label.merging(["app": app]) { a, _ in a }, &out)
            }
        case .none:
            out.append(.record(.shieldUnchanged, f))
        }
    }

    /// The app in use was used for as long as the user meant: back to the home screen.
    mutating func endFinishedUse(_ out: inout [OSEffect]) {
        guard case .app(let app, let until, _) = frontmost, until <= now else { return }
        frontmost = .home
        out.append(.record(.appLeft, ["app": app]))
    }
}
