import AppGroup
import Foundation
import History
import ScreenTimeModel
import ScreenTimeOS
import Supervision
import OSFiles
import SystemKit

/// The nemesis as the run carries it out: the planned faults still to come (`ScenarioPlan.faults`,
/// drawn from the seed before the run), the extension calls an armed stop holds back, and whether
/// a fault is being carried out at a quiescent instant. What a fault does to a process is
/// `ProcessTable.apply`'s decision; this only says when, and launches held calls when their stop ends.
struct Nemesis {
    /// Planned faults not yet due, in time order.
    var pending: ArraySlice<PlannedFault>
    /// Virtual time: calls held back by an armed stop, started at their tick.
    var deferredCalls: [(ticks: Int64, role: ProcessRole, call: ExtensionCall, delivery: Int)] = []
    /// Virtual time: true while a planned fault runs at a quiescent instant (`loopStepped`).
    var atQuiescentInstant = false

    init(planned: [PlannedFault]) {
        pending = planned[...]
    }

    /// The next planned fault if `isDue` says it has come (it is then no longer pending).
    mutating func takeNext(ifDue isDue: (PlannedFault) -> Bool) -> PlannedFault? {
        guard let f = pending.first, isDue(f) else { return nil }
        pending = pending.dropFirst()
        return f
    }
}

extension LiveRun {
    /// Fixed rate: every planned fault due `elapsedMillis` of wall time after the start.
    func applyDueFaults(elapsedMillis: Int, now: Int64) {
        while let f = nemesis.takeNext(ifDue: { $0.atOffsetMillis <= elapsedMillis }) {
            execute(processes.table.apply(f, now: now))
        }
    }

    /// Virtual time: every planned fault due at this device instant, each at a quiescent instant
    /// and followed by quiet.
    func applyDueFaultsAtInstant() {
        let deviceStart = setup.deviceStart, now = virtualTime.now
        while let f = nemesis.takeNext(ifDue: { deviceStart + Double($0.atOffsetMillis) / 1000 <= now }) {
            nemesis.atQuiescentInstant = true
            execute(processes.table.apply(f, now: ticks()))
            nemesis.atQuiescentInstant = false
            settle()
        }
    }

    /// Device time of the next planned fault.
    var nextPlannedFault: Double? { nemesis.pending.first.map { setup.deviceStart + Double($0.atOffsetMillis) / 1000 } }

    /// Virtual time: a fault armed for this extension lands at launch, where its outcome does not
    /// depend on how far the process got in wall time — a kill means the call never runs, a stop
    /// that it runs only when continued (`launchDeferredCalls`). True when one did (the call is
    /// then not launched now).
    func armedFaultTakes(_ call: ExtensionCall, role: ProcessRole, delivery: Int, fields: [String: String]) -> Bool {
        guard stepped, let fault = processes.table.takeArmedFault(role: role.name, now: ticks()) else { return false }
        var f = fields
        switch fault.kind {
        case .kill, .term:
            f["childPid"] = "-"
            rec.record(.callbackDelivered, f)
            rec.record(.signal, [
                "target": role.name, "signal": fault.kind == .kill ? "KILL" : "TERM", "by": "nemesis",
                "delivery": String(delivery), "at": "launch",
            ])
            rec.record(.callbackFailed, [
                "callback": call.callbackName, "delivery": String(delivery), "status": "killed at launch",
            ])
            osApply(.callEnded(delivery: delivery, completed: false, response: nil))
        case .stop:
            f["deferredUntil"] = String(Double(ticks() + fault.holdTicks) / 1000)
            rec.record(.callbackDelivered, f)
            rec.record(.signal, [
                "target": role.name, "signal": "STOP", "by": "nemesis", "delivery": String(delivery), "at": "launch",
            ])
            nemesis.deferredCalls.append((ticks() + fault.holdTicks, role, call, delivery))
        }
        return true
    }

    /// Starts the deferred calls that are due; true if any.
    func launchDeferredCalls() -> Bool {
        let now = ticks()
        let due = nemesis.deferredCalls.filter { $0.ticks <= now }
        guard !due.isEmpty else { return false }
        nemesis.deferredCalls.removeAll { $0.ticks <= now }
        for d in due {
            rec.record(.signal, ["target": d.role.name, "signal": "CONT", "by": "nemesis", "delivery": String(d.delivery)])
            launch(d.role, d.call, delivery: d.delivery, fields: [
                "callback": d.call.callbackName, "delivery": String(d.delivery), "deferredUntil": String(Double(d.ticks) / 1000),
            ])
        }
        return true
    }

    /// Armed extension faults do not outlive the workload (the settle time is fault-free).
    func armedFaultsDropped() {
        for (role, fault) in processes.table.armed.sorted(by: { $0.key < $1.key }) {
            rec.record(.faultSkipped, ["target": role, "kind": fault.kind.rawValue, "why": "no call before the workload ended"])
        }
    }
}
