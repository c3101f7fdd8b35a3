/// One failpoint, as fail-rs and FreeBSD's fail(9) write them: `label=[p%][n*]action[(arg)]`,
/// terms chained with `->` (CRASH-POINTS.md §11, docs/SCENARIOS.md "Failpoints"). Pure: parsed here,
/// validated by the harness before a run, evaluated by `CrashPoints` in the stand-ins.
///
/// `label` is a crash point's label, `<process>:<kind>[:<detail>]`, optionally with `#n`: then
/// the chain is evaluated only at the nth pass of that label in the run (what `harness explore`
/// arms), else at every pass. Evaluation follows fail-rs' `FailPoint::eval`: the terms are tried
/// in order; a term with a count that is used up is skipped; a term with a count uses one up;
/// then a term with a probability draws and, on a miss, the next term is tried; the first term
/// that passes both gives the action. No term: nothing happens.
public struct Failpoint: Sendable, Equatable, CustomStringConvertible {
    public enum Action: String, Sendable, Equatable, CaseIterable {
        /// Nothing happens (a count of passes that are let through: `2*off->kill`).
        case off
        /// The process SIGKILLs itself right there (nothing after it runs).
        case kill
        /// The process sends itself SIGTERM (an app stand-in ends at its next loop turn, an extension at once).
        case term
        /// The whole process is frozen (SIGSTOP) for `arg` wall milliseconds.
        case stop
        /// The calling thread waits `arg` wall milliseconds (the process's other threads run on).
        case delay
        /// The operation fails: it throws, as a full disk or a refused connection would.
        case error

        /// Whether the action takes a `(milliseconds)` argument (required) or none.
        public var takesMilliseconds: Bool { self == .stop || self == .delay }
    }

    public struct Term: Sendable, Equatable, CustomStringConvertible {
        /// Percent, `0 < p <= 100`; nil = always.
        public var percent: Double?
        /// How many times this term may fire; nil = unbounded.
        public var count: Int?
        public var action: Action
        /// Milliseconds for `stop` and `delay`.
        public var milliseconds: Int?

        public init(percent: Double? = nil, count: Int? = nil, action: Action, milliseconds: Int? = nil) {
            self.percent = percent
            self.count = count
            self.action = action
            self.milliseconds = milliseconds
        }

        public var description: String {
            var s = ""
            if let percent { s += (percent == percent.rounded() ? String(Int(percent)) : String(percent)) + "%" }
            if let count { s += "\(count)*" }
            s += action.rawValue
            if let milliseconds { s += "(\(milliseconds))" }
            return s
        }
    }

    /// `<process>:<kind>[:<detail>]`, without `#n`.
    public var label: String
    /// The pass the chain applies to (`#n`), nil = every pass.
    public var occurrence: Int?
    public var terms: [Term]

    public init(label: String, occurrence: Int? = nil, terms: [Term]) {
        self.label = label
        self.occurrence = occurrence
        self.terms = terms
    }

    /// The process part of the label.
    public var process: String { String(label.prefix { $0 != ":" }) }

    public var description: String {
        label + (occurrence.map { "#\($0)" } ?? "") + "=" + terms.map(\.description).joined(separator: "->")
    }

    // MARK: Bounds

    public static let maxMilliseconds = 600_000
    public static let maxCount = 1_000_000
    public static let maxTerms = 16
    public static let maxSpecBytes = 2_000
    /// Crash-point kinds the core provides (`CrashPoints`): a label names one of these.
    public static let kinds = [
        "defaults", "post", "heartbeat", "shield", "shield.clear", "monitoring.start", "monitoring.stop", "http.send", "http.reply",
        "respond", "authorization", "notifications.categories", "notification.add", "notifications.remove", "badge", "step",
        // ManagedSettingsStore's other groups, each set as `shield` is.
        "account", "appStore", "application", "cellular", "dateAndTime", "gameCenter", "media", "passcode", "safari", "siri",
        "webContent",
    ]

    /// A problem at a 0-based character offset of the spec (the harness adds the file position).
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var offset: Int
        public var message: String
        public var description: String { message }

        public init(offset: Int, message: String) {
            self.offset = offset
            self.message = message
        }
    }

    /// Parses `label=chain`. `processes` (when given) are the processes a label may name.
    public static func parse(_ spec: String, processes: [String]? = nil) throws(ParseError) -> Failpoint {
        let chars = Array(spec)
        guard spec.utf8.count <= maxSpecBytes else { throw ParseError(offset: 0, message: "longer than \(maxSpecBytes) bytes") }
        if let bad = chars.firstIndex(where: { $0.isNewline || $0 == "\t" || $0 == "\0" }) {
            throw ParseError(offset: bad, message: "a failpoint is one line without tabs")
        }
        guard let eq = chars.firstIndex(of: "=") else {
            throw ParseError(offset: chars.count, message: "expected label=action, e.g. host-app:defaults:group.x/key#2=kill")
        }
        var labelText = String(chars[..<eq])
        var occurrence: Int?
        if let hash = labelText.lastIndex(of: "#") {
            let digits = labelText[labelText.index(after: hash)...]
            let hashOffset = labelText.distance(from: labelText.startIndex, to: hash)
            guard let n = Int(digits), n >= 1, n <= maxCount, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw ParseError(offset: hashOffset, message: "'#' in a label must be followed by the pass number, 1...\(maxCount)")
            }
            occurrence = n
            labelText = String(labelText[..<hash])
        }
        let parts = labelText.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw ParseError(offset: 0, message: "label '\(labelText)' must be <process>:<kind>[:<detail>], e.g. host-app:defaults:group.x/key")
        }
        if let processes, !processes.contains(parts[0]) {
            throw ParseError(offset: 0, message: "unknown process '\(parts[0])'; crash points are in: \(processes.joined(separator: ", "))")
        }
        guard kinds.contains(parts[1]) else {
            throw ParseError(offset: parts[0].count + 1, message: "unknown crash point kind '\(parts[1])'; known: \(kinds.joined(separator: ", "))")
        }
        var terms: [Term] = []
        var offset = eq + 1
        let chain = String(chars[(eq + 1)...])
        let pieces = chain.components(separatedBy: "->")
        guard pieces.count <= maxTerms else { throw ParseError(offset: offset, message: "more than \(maxTerms) terms in one chain") }
        for piece in pieces {
            terms.append(try term(piece, offset: offset))
            offset += piece.count + 2
        }
        return Failpoint(label: labelText, occurrence: occurrence, terms: terms)
    }

    /// `[p%][n*]action[(arg)]`.
    static func term(_ text: String, offset: Int) throws(ParseError) -> Term {
        var rest = Substring(text)
        var at = offset
        var term = Term(action: .off)
        guard !rest.isEmpty else { throw ParseError(offset: at, message: "empty term; expected [p%][n*]action like 50%2*kill") }
        if let pct = rest.firstIndex(of: "%") {
            let number = rest[..<pct]
            guard let p = Double(number), p > 0, p <= 100, number.allSatisfy({ $0.isNumber || $0 == "." }) else {
                throw ParseError(offset: at, message: "'\(number)%': a probability is a number of percent, 0 < p <= 100")
            }
            term.percent = p
            at += number.count + 1
            rest = rest[rest.index(after: pct)...]
        }
        if let star = rest.firstIndex(of: "*") {
            let number = rest[..<star]
            guard let n = Int(number), n >= 1, n <= maxCount, number.allSatisfy(\.isNumber) else {
                throw ParseError(offset: at, message: "'\(number)*': a count is a whole number, 1...\(maxCount)")
            }
            term.count = n
            at += number.count + 1
            rest = rest[rest.index(after: star)...]
        }
        var name = rest
        var argument: Substring?
        if let open = rest.firstIndex(of: "(") {
            guard rest.last == ")" else { throw ParseError(offset: at + rest.count, message: "missing ')' after the argument") }
            name = rest[..<open]
            argument = rest[rest.index(after: open)..<rest.index(before: rest.endIndex)]
        }
        guard let action = Action(rawValue: String(name)) else {
            throw ParseError(offset: at, message: "unknown action '\(name)'; expected one of: \(Action.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        term.action = action
        if action.takesMilliseconds {
            guard let argument, let ms = Int(argument), ms >= 0, ms <= maxMilliseconds, argument.allSatisfy(\.isNumber) else {
                throw ParseError(offset: at + name.count, message: "\(action.rawValue) takes milliseconds, 0...\(maxMilliseconds): \(action.rawValue)(100)")
            }
            term.milliseconds = ms
        } else if argument != nil {
            throw ParseError(offset: at + name.count, message: "\(action.rawValue) takes no argument")
        }
        return term
    }

    // MARK: Evaluation

    /// What the failpoint does at the pass `pass` (1-based, counted over the run) of its label.
    /// `remaining` holds each term's count left (start: `initialCounts`) and is used up as fail-rs
    /// does; `seed` makes the probability draws the same in every run. Nil = nothing happens.
    public func evaluate(pass: Int, remaining: inout [Int?], seed: UInt64) -> Term? {
        if let occurrence, occurrence != pass { return nil }
        for (i, t) in terms.enumerated() {
            if let left = remaining[i] {
                if left <= 0 { continue }
                remaining[i] = left - 1
            }
            if let p = t.percent, p < 100 {
                let draw = Self.draw(seed: seed, label: label, pass: pass, term: i)
                if draw >= p / 100 { continue }
            }
            return t
        }
        return nil
    }

    public var initialCounts: [Int?] { terms.map(\.count) }

    /// A uniform number in [0, 1) from the seed, the label, the pass and the term: the same in
    /// every run and every process (FNV-1a of the label, then SplitMix64).
    static func draw(seed: UInt64, label: String, pass: Int, term: Int) -> Double {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in label.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        var z = seed &+ h &+ UInt64(truncatingIfNeeded: pass) &* 0x9e37_79b9_7f4a_7c15 &+ UInt64(truncatingIfNeeded: term) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        z ^= z >> 31
        return Double(z >> 11) / Double(UInt64(1) << 53)
    }
}
