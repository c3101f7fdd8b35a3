extension DeviceOS {
    /// The user opens the host: launched if not running, continued if suspended, foreground.
    mutating func openHost(_ out: inout [OSEffect]) {
        switch host {
        case .notRunning: out.append(.launchHost)
        case .suspended: out.append(.resumeHost)
        case .background, .foreground: break
        }
        if host != .foreground { out.append(.record("host_state", ["state": "foreground"])) }
        host = .foreground
        frontmost = .host
    }

    mutating func leaveHost(_ out: inout [OSEffect]) {
        guard host == .foreground else { return }
        host = .background(since: now)
        if frontmost == .host { frontmost = .home }
        out.append(.record("host_state", ["state": "background"]))
        hostTick(&out)
    }

    /// A host in the background is suspended once the grace period is over (iOS: timers and
    /// observers stop until it is foregrounded again).
    mutating func hostTick(_ out: inout [OSEffect]) {
        guard configuration.hostLifecycle, case .background(let since) = host, now >= since + configuration.backgroundGraceSeconds else { return }
        host = .suspended
        out.append(.suspendHost)
        out.append(.record("host_state", ["state": "suspended"]))
    }
}
