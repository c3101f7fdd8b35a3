import History

/// One callback the emulated OS delivered to a freshly started extension process, and how that
/// process ended.
public struct CallbackDelivery: Sendable {
    public enum Outcome: Sendable {
        /// The extension exited 0: its effects happened.
        case completed(HistoryEvent)
        /// Killed or crashed mid-callback: its effects may or may not have happened.
        case failed(HistoryEvent)
        /// The history ends before the extension did: as ambiguous as a failure.
        case unknown
    }

    public var delivered: HistoryEvent
    public var outcome: Outcome = .unknown
    /// The call waited for the extension's previous call to return (EMULATED-IOS.md §10.1): the
    /// `callback_queued` line, at the instant iOS made the call (nil: started at once).
    public var queued: HistoryEvent?

    /// When iOS made the call: its `callback_queued` line, else its `callback_delivered` line.
    public var madeAt: Double { queued?.t ?? delivered.t }

    public var id: String? { delivered["delivery"] }
    public var callback: String? { delivered["callback"] }
    public var activity: String? { delivered["activity"] }
    public var extensionPid: Int32? { delivered.childPid }

    public var isCompleted: Bool {
        if case .completed = outcome { return true } else { return false }
    }

    public var outcomeEvent: HistoryEvent? {
        switch outcome {
        case .completed(let e), .failed(let e): return e
        case .unknown: return nil
        }
    }

    /// Every `callback_delivered`, joined with its `callback_queued` (if it waited) and its
    /// `callback_completed` / `callback_failed` by delivery id.
    public static func deliveries(in events: [HistoryEvent]) -> [CallbackDelivery] {
        var deliveries: [CallbackDelivery] = []
        var indexById: [String: Int] = [:]
        var queuedById: [String: HistoryEvent] = [:]
        for event in events where event.process == HistoryEvent.harnessProcessName {
            switch event.event {
            case "callback_queued":
                if let id = event["delivery"] { queuedById[id] = event }
            case "callback_delivered":
                if let id = event["delivery"] { indexById[id] = deliveries.count }
                deliveries.append(CallbackDelivery(delivered: event, queued: event["delivery"].flatMap { queuedById.removeValue(forKey: $0) }))
            case "callback_completed", "callback_failed":
                guard let id = event["delivery"], let i = indexById[id] else { continue }
                deliveries[i].outcome = event.event == "callback_completed" ? .completed(event) : .failed(event)
            default: break
            }
        }
        return deliveries
    }
}
