import History

/// The user's work that never reached the app, found in the history alone, for a pack to list
/// beside its verdict (`report.json`'s `lostByOS`) so a PASS never hides it (no pass
/// by lost work): shield presses iOS never got an answer to, and taps the app never took in.
public enum LostWork {
    /// A shield press none of whose shield-action calls completed.
    public struct Press: Sendable {
        public let press: HistoryEvent
        /// Its calls (none completed).
        public let calls: [CallbackDelivery]
        /// The harness's lines saying why (dropped, failed, not delivered, the answer lost).
        public let why: [HistoryEvent]
    }

    /// Presses (`user_action` whose `action` is in `actions`) none of whose shield-action calls
    /// completed. A press's calls are those carrying its `label` field (iOS carries a press's label
    /// on its calls: a duplicate answered is an answer) or, with `label` nil, the calls before the
    /// user's next action. A press with no call and no shield on screen
    /// (`shield_button_unavailable`) is no press: whether the shield should have been there is the
    /// rules' to judge.
    public static func unansweredPresses(in events: [HistoryEvent], actions: Set<String>, label: String?) -> [Press] {
        let users = events.filter { $0.isHarnessLine("user_action") }
        let calls = CallbackDelivery.deliveries(in: events).filter { $0.callback == "shieldAction" }
        var out: [Press] = []
        for (i, press) in users.enumerated() where actions.contains(press["action"] ?? "") {
            let next = label == nil ? users.dropFirst(i + 1).first?.mono ?? .max : .max
            func mine(_ e: HistoryEvent) -> Bool { e.mono > press.mono && e.mono < next && (label.map { e[$0] == press[$0] } ?? true) }
            let answered = calls.filter { mine($0.delivered) }
            guard !answered.contains(where: \.isCompleted) else { continue }
            if answered.isEmpty, events.contains(where: { $0.isHarnessLine("shield_button_unavailable") && mine($0) }) { continue }
            let why = events.filter {
                $0.process == HistoryEvent.harnessProcessName && mine($0) && ($0["callback"] ?? "shieldAction") == "shieldAction"
                    && ["callback_dropped", "callback_failed", "callback_not_delivered", "shield_action_lost"].contains($0.event)
            }
            out.append(Press(press: press, calls: answered, why: why))
        }
        return out
    }

    /// Taps (`user_action` whose `action` is `action`) that `role` never took in — no `user_input`
    /// of `inputAction` (default: the same name) whose `matching` fields equal the tap's — before
    /// the user's next tap of that kind.
    public static func untakenTaps(
        in events: [HistoryEvent], role: String, action: String, inputAction: String? = nil, matching: [String] = []
    ) -> [HistoryEvent] {
        let taps = events.filter { $0.isUserAction(action) }
        return taps.enumerated().compactMap { i, tap in
            let until = taps.dropFirst(i + 1).first?.mono ?? .max
            let taken = events.contains { input in
                input.isLine(of: role, "user_input") && input["action"] == (inputAction ?? action) && input.mono > tap.mono && input.mono < until
                    && matching.allSatisfy { key in input[key] == tap[key] }
            }
            return taken ? nil : tap
        }
    }
}

extension LostWork {
    /// A kind of shield press whose loss a pack wants said: presses of `action` none of whose
    /// shield-action calls completed (`unansweredPresses`).
    public struct PressKind: Sendable {
        public var action: String
        /// The field iOS carries from a press to its calls (nil: a press's calls are those before
        /// the user's next action).
        public var label: String?
        /// The invariant a lost press counts against.
        public var invariant: String
        /// How the user would name the press, e.g. "Begin Breathing" ("the Begin Breathing press …").
        public var name: String
        /// The subject's id when the press carries no label, e.g. "close" (`close@t=…`).
        public var id: String

        public init(action: String, label: String?, invariant: String, name: String, id: String? = nil) {
            (self.action, self.label, self.invariant, self.name, self.id) = (action, label, invariant, name, id ?? action)
        }
    }

    /// A kind of tap whose loss a pack wants said: taps of `action` that `role` never took in
    /// (`untakenTaps`).
    public struct TapKind: Sendable {
        public var role: String
        public var action: String
        /// The `user_input` action that takes it in (default: `action`).
        public var inputAction: String?
        /// Fields a `user_input` must share with the tap to take it in (they also name it).
        public var matching: [String]
        /// The invariant a lost tap counts against.
        public var invariant: String
        /// What the user lost with it, said after the explanation (e.g. "no shields, no unlocks").
        public var consequence: String?
        /// How the explanation names `role` ("… never reached the host").
        public var roleName: String

        public init(
            role: String, action: String, inputAction: String? = nil, matching: [String] = [], invariant: String, consequence: String? = nil,
            roleName: String = "the host"
        ) {
            (self.role, self.action, self.inputAction, self.matching, self.invariant, self.consequence, self.roleName) =
                (role, action, inputAction, matching, invariant, consequence, roleName)
        }
    }

    /// The user's lost work of these kinds, as violations for `report.json`'s `lostByOS`, in the
    /// order the user did it — one wording for every pack: the press or tap, when, what became of
    /// it, the lines that show it.
    public static func violations(in events: [HistoryEvent], presses: [PressKind] = [], taps: [TapKind] = []) -> [InvariantViolation] {
        var out: [(mono: Int64, violation: InvariantViolation)] = []
        for kind in presses {
            for lost in unansweredPresses(in: events, actions: [kind.action], label: kind.label) {
                let press = lost.press, labelled = kind.label.flatMap { press[$0] }
                let why = lost.why.isEmpty ? "" : ": " + lost.why.map(\.event).joined(separator: ", ")
                let cited: [HistoryEvent?] = [press] + lost.why.prefix(3).map { Optional($0) } + lost.calls.prefix(2).map { Optional($0.delivered) }
                    + lost.calls.prefix(2).map(\.outcomeEvent)
                out.append((press.mono, InvariantViolation(
                    invariant: kind.invariant, subject: .init(kind: "press", id: "\(labelled ?? kind.id)@t=\(Int(press.t))"),
                    explanation: "the \(kind.name) press\(labelled.map { " (\(kind.label ?? "") \($0))" } ?? "") at t=\(press.t): no shield-action call of it completed"
                        + (kind.label == nil ? " before the user's next move" : "") + " (\(lost.calls.count) call(s)\(why))",
                    relevantEvents: RelevantEvents.pick(cited))))
            }
        }
        for kind in taps {
            for tap in untakenTaps(in: events, role: kind.role, action: kind.action, inputAction: kind.inputAction, matching: kind.matching) {
                let named = kind.matching.compactMap { key in tap[key].map { "\(key) \($0)" } }
                let step = tap["step"].map { " (step \($0))" } ?? ""
                let exit = events.last { $0.isHarnessLine("exit") && $0["target"] == kind.role && $0.mono < tap.mono }
                out.append((tap.mono, InvariantViolation(
                    invariant: kind.invariant,
                    subject: .init(kind: "tap", id: ([kind.action] + kind.matching.compactMap { tap[$0] }).joined(separator: " ") + "@t=\(Int(tap.t))"),
                    explanation: "the user's \(kind.action) tap\(named.isEmpty ? "" : " of " + named.joined(separator: ", ")) at t=\(tap.t)\(step)"
                        + " never reached \(kind.roleName) (no user_input)" + (kind.consequence.map { ": " + $0 } ?? ""),
                    relevantEvents: RelevantEvents.pick([tap, exit]))))
            }
        }
        return out.enumerated().sorted { ($0.element.mono, $0.offset) < ($1.element.mono, $1.offset) }.map(\.element.violation)
    }
}

extension LostWork {
    /// The name under which a tap lost with the app is listed (`lostByOS`), for every pack.
    public static let tapLostWithTheApp = "tap-lost-with-the-app"

    /// Every tap the app took in, died while handling, and that was not made again
    /// (`HistoryIndex.lostTaps` with a `user_input`), as `lostByOS` entries: the core lists them
    /// for every pack, so a verdict that excuses one never hides it. (A tap taken out of the inbox
    /// and never traced is a pack's `TapKind` to word: "never reached the host".)
    public static func tapsLostWithTheApp(_ index: HistoryIndex) -> [InvariantViolation] {
        index.lostTaps.compactMap { lost -> InvariantViolation? in
            guard let input = lost.input else { return nil }
            let fields = (lost.line.fields.keys.filter { !["target", "action", "seq", "how", "why", "retryOf", "taps"].contains($0) }).sorted()
                .compactMap { k in lost[k].map { "\(k) \($0)" } }
            let came = lost.beforeAnyEffect ? "before anything came of it" : "after \(lost.effects.count) line(s) of what it did"
            return InvariantViolation(
                invariant: tapLostWithTheApp, subject: .init(kind: "tap", id: "\(lost.action) #\(lost["seq"] ?? "?")@t=\(Int(input.t))"),
                explanation: "the user's \(lost.action) tap\(fields.isEmpty ? "" : " (" + fields.joined(separator: ", ") + ")") at t=\(input.t): "
                    + "\(lost.role) died while handling it, \(came), and it was not made again: \(lost["why"] ?? "?")",
                relevantEvents: RelevantEvents.pick([input, lost.exit, lost.line]))
        }
    }
}
