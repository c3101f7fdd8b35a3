import History

extension FocusPledgeChecker {
    /// One callback the emulated OS delivered to a freshly started extension process, and how that
    /// process ended.
    struct CallbackDelivery: Sendable {
        enum Outcome: Sendable {
            /// The extension exited 0: its effects happened.
            case completed(HistoryEvent)
            /// Killed or crashed mid-callback: its effects may or may not have happened.
            case failed(HistoryEvent)
            /// The history ends before the extension did: as ambiguous as a failure.
            case unknown
        }

        /// The callbacks through which seed 000 learns that a blocked app was opened.
        static let violationCallbacks: Set<String> = ["eventDidReachThreshold", "shieldAction"]

        var delivered: HistoryEvent
        var outcome: Outcome = .unknown

        var id: String? { delivered["delivery"] }
        var callback: String? { delivered["callback"] }
        var sessionId: String? { delivered.sessionIdField }
        var extensionPid: Int32? { delivered.childPid }
        var isViolationCallback: Bool { callback.map(Self.violationCallbacks.contains) ?? false }

        var isCompleted: Bool {
            if case .completed = outcome { return true } else { return false }
        }

        var outcomeEvent: HistoryEvent? {
            switch outcome {
            case .completed(let e), .failed(let e): return e
            case .unknown: return nil
            }
        }

        /// Every `callback_delivered`, joined with its `callback_completed` / `callback_failed` by delivery id.
        static func deliveries(in events: [HistoryEvent]) -> [CallbackDelivery] {
            var deliveries: [CallbackDelivery] = []
            var indexById: [String: Int] = [:]
            for event in events where event.process == HistoryEvent.harnessProcessName {
                switch event.event {
                case "callback_delivered":
                    if let id = event["delivery"] { indexById[id] = deliveries.count }
                    deliveries.append(CallbackDelivery(delivered: event))
                case "callback_completed", "callback_failed":
                    guard let id = event["delivery"], let i = indexById[id] else { continue }
                    deliveries[i].outcome = event.event == "callback_completed" ? .completed(event) : .failed(event)
                default: break
                }
            }
            return deliveries
        }
    }
}
