import AppGroup

/// Stepped virtual time as plain data (PROTOCOL.md §9): what every participant last said, and
/// from that whether anything still holds device time — a participant starting, a notification
/// posted that an observer has not taken in, an HTTP answer outstanding to a server that runs, a
/// timer due that has not fired, an extension call running — and when the next deadline is.
/// Pure: the runner feeds it reports, spawns and exits, and hands in the notify generations.
package struct VirtualScheduler: Sendable, Equatable {
    package struct Participant: Sendable, Equatable {
        package var role: String
        package var report: SchedulerReport?
    }

    /// Live participants by pid.
    package private(set) var participants: [Int32: Participant] = [:]
    /// Reports from pids that are not (or no longer) participants.
    package private(set) var strayReports = 0

    package init() {}

    package mutating func spawned(pid: Int32, role: String) { participants[pid] = Participant(role: role) }

    package mutating func exited(pid: Int32) { participants[pid] = nil }

    package mutating func received(_ report: SchedulerReport) {
        guard var p = participants[report.pid] else {
            strayReports += 1
            return
        }
        // Reports of one pid arrive in order; an older one never replaces a newer one.
        if let last = p.report, last.seq >= report.seq { return }
        p.report = report
        participants[report.pid] = p
    }

    /// Every reason device time may not move yet, one line each (empty = quiescent), at device
    /// time `now`. `generation(name)` is the current generation of a notify name; `stopped` are
    /// the pids the nemesis holds stopped; `stoppedServices` the server roles stopped (requests to
    /// them wait for their deadline); `runningCalls` the extension calls running (not stopped);
    /// `exiting` the long-lived roles signalled to die and not yet reaped (their exit is an event
    /// of this instant, recorded before anything else happens).
    package func blockers(
        now: Double, generation: (String) -> UInt64, stopped: Set<Int32>, stoppedServices: Set<String>, runningCalls: [String],
        exiting: [String] = []
    ) -> [String] {
        var out: [String] = exiting.map { "\($0) is exiting" }
        for (pid, p) in participants.sorted(by: { $0.key < $1.key }) where !stopped.contains(pid) {
            guard let r = p.report else {
                out.append("\(p.role) (pid \(pid)) is starting")
                continue
            }
            for (name, gen) in r.consumed.sorted(by: { $0.key < $1.key }) where generation(name) > gen {
                out.append("\(p.role) has not taken in \(name)")
            }
            for (service, count) in r.http.sorted(by: { $0.key < $1.key }) where count > 0 && !stoppedServices.contains(service) {
                out.append("\(p.role) waits for \(service)")
            }
            if let next = r.nextUnixSeconds, next <= now {
                out.append("\(p.role) has a timer due")
            }
        }
        out += runningCalls.map { "\($0) call running" }
        return out
    }

    /// Participants (not stopped) whose reported deadline has come and who have not been woken for
    /// it yet: the harness posts each one's `system.wake.<pid>`.
    package func toWake(now: Double, generation: (String) -> UInt64, stopped: Set<Int32>) -> [Int32] {
        participants.keys.sorted().filter { pid in
            guard !stopped.contains(pid), let r = participants[pid]?.report, let next = r.nextUnixSeconds, next <= now else { return false }
            let name = SchedulerChannel.wakeNotification(pid: pid)
            return generation(name) <= (r.consumed[name] ?? 0)
        }
    }

    /// The earliest deadline of a participant that is not stopped, after `now`.
    package func nextDeadline(after now: Double, stopped: Set<Int32>) -> Double? {
        participants.filter { !stopped.contains($0.key) }.compactMap { $0.value.report?.nextUnixSeconds }.filter { $0 > now }.min()
    }
}
