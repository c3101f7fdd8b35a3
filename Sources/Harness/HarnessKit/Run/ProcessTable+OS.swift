/// What the emulated iOS does to processes (`DeviceOS` effects): suspend the host in the
/// background, resume it, terminate it (force quit), reboot the device. Signals are recorded with
/// `by: ios`; a nemesis stop and an iOS suspension of one process do not undo each other.
extension ProcessTable {
    public mutating func osSuspend(role: String) -> [Command] {
        guard let i = longLived.firstIndex(where: { $0.role == role }), let pid = longLived[i].pid, !longLived[i].osSuspended else { return [] }
        longLived[i].osSuspended = true
        return [.signal(pid: pid, .stop), .record(.signal, ["target": role, "childPid": String(pid), "signal": "STOP", "by": "ios"])]
    }

    public mutating func osResume(role: String) -> [Command] {
        guard let i = longLived.firstIndex(where: { $0.role == role }), let pid = longLived[i].pid, longLived[i].osSuspended else { return [] }
        longLived[i].osSuspended = false
        // Still held by the nemesis: it continues when the nemesis lets go.
        guard !longLived[i].isStopped else { return [] }
        return [.signal(pid: pid, .cont), .record(.signal, ["target": role, "childPid": String(pid), "signal": "CONT", "by": "ios"])]
    }

    /// Force quit: killed, and not relaunched until iOS launches it (`osLaunch`).
    public mutating func osTerminate(role: String) -> [Command] {
        guard let i = longLived.firstIndex(where: { $0.role == role }) else { return [] }
        longLived[i].heldDownByOS = true
        longLived[i].restartAtNanos = nil
        longLived[i].resumeAtNanos = nil
        guard let pid = longLived[i].pid else { return [] }
        longLived[i].expectedExit = true
        return [.signal(pid: pid, .kill), .record(.signal, ["target": role, "childPid": String(pid), "signal": "KILL", "by": "ios"])]
    }

    /// iOS launches the app (the user opened it): started now unless it runs.
    public mutating func osLaunch(role: String) -> [Command] {
        guard let i = longLived.firstIndex(where: { $0.role == role }) else { return [] }
        longLived[i].heldDownByOS = false
        guard longLived[i].pid == nil else { return [] }
        longLived[i].restartAtNanos = nil
        return [.spawn(role: role)]
    }

    /// A device reboot: every process of `deviceRoles` and every extension call is killed. The
    /// apps stay down until iOS launches them (the user opens them); servers are not on the device.
    public mutating func reboot(deviceRoles: Set<String>) -> [Command] {
        var commands: [Command] = []
        for i in longLived.indices where deviceRoles.contains(longLived[i].role) {
            longLived[i].heldDownByOS = true
            longLived[i].restartAtNanos = nil
            longLived[i].resumeAtNanos = nil
            guard let pid = longLived[i].pid else { continue }
            longLived[i].expectedExit = true
            commands += [.signal(pid: pid, .kill), .record(.signal, ["target": longLived[i].role, "childPid": String(pid), "signal": "KILL", "by": "reboot"])]
        }
        for call in extensions {
            commands += [.signal(pid: call.pid, .kill), .record(.signal, [
                "target": call.role, "childPid": String(call.pid), "signal": "KILL", "by": "reboot", "delivery": String(call.delivery),
            ])]
        }
        return commands
    }
}
