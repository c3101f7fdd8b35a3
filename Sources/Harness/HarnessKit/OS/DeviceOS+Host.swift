import Foundation
import ScreenTimeModel

extension DeviceOS {
    /// The user opens the host: launched if not running, continued if suspended, foreground.
    mutating func openHost(_ out: inout [OSEffect]) {
        switch host {
        case .notRunning: out.append(.launchHost)
        case .suspended: out.append(.resumeHost)
        case .background, .foreground: break
        }
        let wasForeground = host == .foreground
        if !wasForeground { out.append(.record(.hostState, ["state": "foreground"])) }
        host = .foreground
        frontmost = .host
        if !wasForeground { tellLifecycle(active: true, &out) }
    }

    mutating func leaveHost(_ out: inout [OSEffect]) {
        guard host == .foreground else { return }
        host = .background(since: now)
        if frontmost == .host { frontmost = .home }
        out.append(.record(.hostState, ["state": "background"]))
        tellLifecycle(active: false, &out)
        hostTick(&out)
    }

    /// A host in the background is suspended once the grace period is over (iOS: timers and
    /// observers stop until it is foregrounded again).
    mutating func hostTick(_ out: inout [OSEffect]) {
        guard configuration.hostLifecycle, case .background(let since) = host, now >= since + configuration.backgroundGraceSeconds else { return }
        host = .suspended
        out.append(.suspendHost)
        out.append(.record(.hostState, ["state": "suspended"]))
    }
}

extension DeviceOS {
    /// Tells the host, through its inbox, what its role declared it hears (`AppNotices`).
    mutating func tellHost(_ action: String, _ fields: [String: String] = [:], _ out: inout [OSEffect]) {
        out.append(.tellHost(action: action, fields: fields))
    }

    /// `app_state`: the host came to the foreground or left it (EMULATED-IOS.md §7.7).
    mutating func tellLifecycle(active: Bool, _ out: inout [OSEffect]) {
        guard configuration.hostNotices.lifecycle else { return }
        tellHost(OSMessageActions.appState, ["state": active ? "active" : "background"], &out)
    }

    /// `significant_time_change` to a host that is running or suspended (one that is not running
    /// hears nothing: it reads the date when it launches).
    mutating func tellSignificantTimeChange(_ out: inout [OSEffect]) {
        guard configuration.hostNotices.significantTimeChange, host != .notRunning else { return }
        tellHost(OSMessageActions.significantTimeChange, [:], &out)
    }

    /// The user opened a URL (a link, a notification's deep link): a scheme the host registered
    /// opens it (launched or foregrounded) with `open_url`; any other is not the app's.
    mutating func openURL(_ url: String, _ out: inout [OSEffect]) {
        let scheme = url.split(separator: ":", maxSplits: 1).first.map { String($0).lowercased() } ?? ""
        guard configuration.hostNotices.urlSchemes.map({ $0.lowercased() }).contains(scheme) else {
            out.append(.record(.urlNotHandled, ["url": url]))
            return
        }
        openHost(&out)
        tellHost(OSMessageActions.openURL, ["url": url], &out)
    }

    func localDay(_ t: Double) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: t))
        return (c.year ?? 0) * 10_000 + (c.month ?? 0) * 100 + (c.day ?? 0)
    }

    func nextLocalMidnight() -> Double? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let start = calendar.startOfDay(for: Date(timeIntervalSince1970: now))
        return calendar.date(byAdding: .day, value: 1, to: start)?.timeIntervalSince1970
    }
}
