import History

/// One incarnation of a stand-in process: from the harness's `spawn` to its `exit` (nil while it
/// still ran when the history ends), with the STOP/CONT signals it received.
public struct ProcessLifetime: Sendable {
    public var pid: Int32
    public var spawn: HistoryEvent
    public var exit: HistoryEvent?
    public var signals: [HistoryEvent] = []

    public func isAlive(atMono mono: Int64) -> Bool {
        spawn.mono <= mono && mono < (exit?.mono ?? .max)
    }

    /// True if the process was SIGSTOPped at `from` or received a STOP before `to`: a latency
    /// measured across a suspension measures the nemesis, not the protocol.
    public func wasSuspended(from: Int64, to: Int64) -> Bool {
        // Stopped at `from`: the state after every signal up to then (a CONT later in the
        // window does not undo that the process sat stopped for part of it).
        var stoppedAtFrom = false
        for signal in signals where signal.mono <= from {
            switch signal["signal"] {
            case "STOP": stoppedAtFrom = true
            case "CONT": stoppedAtFrom = false
            default: break
            }
        }
        if stoppedAtFrom { return true }
        return signals.contains { $0.mono > from && $0.mono <= to && $0["signal"] == "STOP" }
    }

    /// Lifetimes of every process the harness spawned as `target` (a role), in spawn order.
    public static func lifetimes(of target: String, in events: [HistoryEvent]) -> [ProcessLifetime] {
        var lives: [ProcessLifetime] = []
        for event in events where event.process == HistoryEvent.harnessProcessName && event["target"] == target {
            guard let pid = event.childPid else { continue }
            let open = lives.lastIndex { $0.pid == pid && $0.exit == nil }
            switch event.event {
            case "spawn": lives.append(ProcessLifetime(pid: pid, spawn: event))
            case "exit": if let i = open { lives[i].exit = event }
            case "signal": if let i = open { lives[i].signals.append(event) }
            default: break
            }
        }
        return lives
    }
}

extension Array where Element == ProcessLifetime {
    public func alive(atMono mono: Int64) -> Element? { first { $0.isAlive(atMono: mono) } }

    /// The first incarnation spawned after `mono`.
    public func nextSpawn(afterMono mono: Int64) -> Element? { first { $0.spawn.mono > mono } }
}
