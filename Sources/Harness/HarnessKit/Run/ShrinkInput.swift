import Foundation
import History
import Yams

/// A failing run's steps, read from its directory, and the scenario file that runs any subset of
/// them (`harness shrink`). The steps are what `schedule.json` planned — each user action and each
/// nemesis fault — plus each failpoint (the scenario's and `--failpoint`'s) and each field-fault
/// rule (`os.faults`). A subset becomes the recorded scenario with a `plan:` section pinning the
/// kept actions and faults, the kept failpoints and the kept rules; the rest of the scenario (clock,
/// workload settings, `os:`) is unchanged, so the same seed runs the same way.
package struct ShrinkInput {
    package enum Kind: String, CaseIterable, Sendable {
        case action = "user actions"
        case fault = "nemesis faults"
        case failpoint = "failpoints"
        case fieldFault = "field faults"
    }

    package struct Step: Sendable {
        package var kind: Kind
        /// What it is, in one line (for the final listing).
        package var summary: String
        /// Device seconds from the start when it happens (actions, faults under virtual time).
        package var atSeconds: Double? = nil
        /// A fault under virtual time: device seconds from the start when it ends (the stopped
        /// process continues, the killed one is relaunched).
        package var untilSeconds: Double? = nil
        /// An action `postponing` moved: from when, in place of which fault (also in `summary`).
        package var moved: String? = nil
        /// The process it acts on: a nemesis fault's target, a failpoint's process.
        package var target: String? = nil
        /// The entry: a JSON object (actions, faults), a failpoint's text, or a field-fault rule's node.
        fileprivate var payload: Payload
    }

    fileprivate enum Payload: @unchecked Sendable {
        case json(String)
        case text(String)
        case node(Node)
    }

    package var steps: [Step]
    /// The pack's own keys of the run's schedule.json (its summary), one JSON object, pinned as
    /// they were (FocusPledge's server reads the planned sessions there).
    var summaryJSON: String
    /// The recorded run's scenario file, composed (comments are not kept).
    let root: Node
    package var scenarioName: String
    package var variant: String
    package var seed: UInt64
    /// The run's device duration when `--duration` overrode the scenario's.
    package var durationSeconds: Int?
    /// The invariants the run violated (report.json).
    package var violated: Set<String>
    /// Per violated invariant, its explanations with every number made `#` (`signature`): a
    /// trial fails "the same way" only with one of these, so the shrink does not slip to another
    /// bug that breaks the same invariant (a start with no apps selected instead of a start cut
    /// short by a kill).
    package var signatures: [String: Set<String>]
    /// run_started's `build` (GNU build ids): a shrink replays only on the same build.
    package var build: String?
    /// Whether the run counted crash points (its failpoints name them).
    package var runDirectory: String

    /// Takes what failed from `violations` (a verdict judged again from the history) instead of
    /// report.json's.
    package mutating func take(_ violations: [InvariantViolation]) {
        (violated, signatures) = Self.failures(violations.map { ($0.invariant, $0.explanation) })
    }

    static func failures(_ violations: [(invariant: String, explanation: String)]) -> (Set<String>, [String: Set<String>]) {
        var signatures: [String: Set<String>] = [:]
        for v in violations { signatures[v.invariant, default: []].insert(signature(v.explanation)) }
        return (Set(violations.map(\.invariant)), signatures)
    }

    package struct LoadError: Error, CustomStringConvertible {
        package var description: String
    }

    /// Reads RUN_DIR/{history.jsonl, scenario.yaml, schedule.json, report.json}.
    package static func load(runDirectory dir: String) throws(LoadError) -> ShrinkInput {
        func read(_ name: String, _ why: String) throws(LoadError) -> Data {
            guard let data = FileManager.default.contents(atPath: dir + "/" + name) else {
                throw LoadError(description: "cannot read \(dir)/\(name): \(why)")
            }
            return data
        }
        let history = try read("history.jsonl", "pass a finished run's directory")
        guard let started = HistoryEvent.parse(jsonl: history).events.first(where: { $0.event == "run_started" }) else {
            throw LoadError(description: "\(dir)/history.jsonl has no run_started line: not a run's history")
        }
        guard let seed = started["seed"].flatMap({ UInt64($0) }), let variant = started["variant"] else {
            throw LoadError(description: "\(dir)/history.jsonl: run_started has no seed or variant")
        }
        let yamlData = try read("scenario.yaml", "the run was recorded by a harness before replay existed; rerun it first")
        var root: Node
        do {
            guard let r = try Yams.compose(yaml: String(decoding: yamlData, as: UTF8.self)), case .mapping = r else {
                throw LoadError(description: "\(dir)/scenario.yaml is not a scenario mapping")
            }
            root = r
        } catch let e as LoadError {
            throw e
        } catch {
            throw LoadError(description: "\(dir)/scenario.yaml is not valid YAML: \(error)")
        }
        // The command line's `--user-retry`, as recorded: the scenario's reruns and the file
        // written say it (`user.retry`).
        if let retry = started["userRetryOverride"], case .mapping(let m) = root {
            var pairs = m.filter { $0.key.string != "user" }.map { ($0.key, $0.value) }
            pairs.append((Node("user"), Node([(Node("retry"), Node(retry))], Tag(.map), .flow)))
            root = Node(pairs, Tag(.map), m.style)
        }
        let scheduleData = try read("schedule.json", "the run's plan is missing")
        guard let schedule = (try? JSONSerialization.jsonObject(with: scheduleData)) as? [String: Any] else {
            throw LoadError(description: "\(dir)/schedule.json is not a JSON object")
        }
        let reportData = try read("report.json", "the run has no verdict (it was interrupted or undecided)")
        guard let report = (try? JSONSerialization.jsonObject(with: reportData)) as? [String: Any] else {
            throw LoadError(description: "\(dir)/report.json is not a JSON object")
        }
        let violations = (report["violations"] as? [[String: Any]] ?? []).compactMap { v in
            (v["invariant"] as? String).map { ($0, v["explanation"] as? String ?? "") }
        }
        let (violated, signatures) = Self.failures(violations)

        var steps: [Step] = []
        func line(_ object: Any) -> String? {
            guard let d = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return nil }
            return String(decoding: d, as: UTF8.self)
        }
        for entry in schedule["userActions"] as? [[String: Any]] ?? [] {
            guard let text = line(entry) else { continue }
            let at = (entry["atDeviceOffsetSeconds"] as? NSNumber)?.doubleValue ?? 0
            let action = entry["action"].flatMap(line) ?? "?"
            steps.append(Step(kind: .action, summary: "at \(Self.clock(at)) user \(action)", atSeconds: at, payload: .json(text)))
        }
        for entry in schedule["faults"] as? [[String: Any]] ?? [] {
            guard let text = line(entry) else { continue }
            let at = ((entry["atDeviceOffsetMillis"] ?? entry["atWallOffsetMillis"]) as? NSNumber)?.doubleValue ?? 0
            let hold = ((entry["holdDeviceMillis"] ?? entry["holdMillis"]) as? NSNumber)?.intValue ?? 0
            let kind = entry["kind"] as? String ?? "?", target = entry["target"] as? String ?? "?"
            // Integer milliseconds: the end's shortest decimal is exact (`postponing` writes it).
            let until = entry["holdDeviceMillis"] != nil ? Double(Int(at) + hold) / 1000 : nil
            steps.append(Step(
                kind: .fault, summary: "at \(Self.clock(at / 1000)) nemesis \(kind) \(target) for \(hold) ms", atSeconds: at / 1000, untilSeconds: until,
                target: target, payload: .json(text)))
        }
        var failpoints: [String] = []
        if let node = root.mapping?["failpoints"], case .sequence(let s) = node {
            failpoints += s.compactMap { $0.string }
        }
        failpoints += (started["extraFailpoints"] ?? "").split(separator: "\n").map(String.init)
        for f in failpoints { steps.append(Step(kind: .failpoint, summary: "failpoint \(f)", target: String(f.prefix { $0 != ":" }), payload: .text(f))) }
        if let os = root.mapping?["os"], let rules = os.mapping?["faults"], case .sequence(let s) = rules {
            for (i, rule) in s.enumerated() {
                let text = Self.flow(rule)
                steps.append(Step(kind: .fieldFault, summary: "os.faults[\(i)] \(text)", payload: .node(rule)))
            }
        }
        var summary = schedule
        for key in ScenarioPlan.coreKeys.union(["userActions", "pinned"]) { summary[key] = nil }
        return ShrinkInput(
            steps: steps, summaryJSON: line(summary) ?? "{}", root: root, scenarioName: root.mapping?["name"]?.string ?? "scenario", variant: variant, seed: seed,
            durationSeconds: started["durationSeconds"].flatMap { Int($0) }, violated: violated, signatures: signatures, build: started["build"],
            runDirectory: dir)
    }

    /// `kept` in the order they happen (timed steps by time, then the failpoints and rules).
    /// A scenario node on one line, in YAML's flow style: `{kind: duplicate, callbacks: [a, b]}`
    /// (the parsed node keeps its block style, which Yams's emitter follows).
    static func flow(_ node: Node) -> String {
        switch node {
        case .scalar(let s): s.string
        case .sequence(let s): "[" + s.map(flow).joined(separator: ", ") + "]"
        case .mapping(let m): "{" + m.map { "\(flow($0.key)): \(flow($0.value))" }.joined(separator: ", ") + "}"
        case .alias: "*"
        }
    }

    package func chronological(_ kept: [Int]) -> [Int] {
        kept.sorted { (steps[$0].atSeconds ?? .infinity, $0) < (steps[$1].atSeconds ?? .infinity, $1) }
    }

    /// Steps of each kind, by index (delta debugging tries dropping each kind whole first).
    package var groups: [[Int]] {
        Kind.allCases.map { kind in steps.indices.filter { steps[$0].kind == kind } }
    }

    package func count(of kind: Kind, in kept: [Int]? = nil) -> Int {
        (kept ?? Array(steps.indices)).filter { steps[$0].kind == kind }.count
    }

    /// "48 user actions, 106 nemesis faults, 1 failpoint" (kinds with none left out).
    package func describe(_ kept: [Int]? = nil) -> String {
        let parts = Kind.allCases.compactMap { kind -> String? in
            let n = count(of: kind, in: kept)
            return n == 0 ? nil : "\(n) \(n == 1 ? String(kind.rawValue.dropLast()) : kind.rawValue)"
        }
        return parts.isEmpty ? "no steps" : parts.joined(separator: ", ")
    }

    /// The scenario file that runs exactly the steps `kept` (indices into `steps`): named
    /// `name`, every kept action and fault pinned in `plan:`, the nemesis section gone (the plan's
    /// faults replace it), failpoints and `os.faults` cut to the kept ones. `header` lines are
    /// prepended as comments.
    package func scenarioYAML(keeping kept: [Int], name: String, header: [String] = []) throws -> String {
        let keep = Set(kept)
        // In time order (ties keep their order): a step `postponing` moved may now come later.
        func jsonLines(_ kind: Kind) -> [String] {
            chronological(steps.indices.filter { keep.contains($0) && steps[$0].kind == kind }).compactMap { i -> String? in
                guard case .json(let text) = steps[i].payload else { return nil }
                return text
            }
        }
        let failpoints: [Node] = steps.indices.filter { keep.contains($0) && steps[$0].kind == .failpoint }.compactMap { i in
            guard case .text(let t) = steps[i].payload else { return nil }
            return Node(t, Tag(.str), .doubleQuoted)
        }
        let rules: [Node] = steps.indices.filter { keep.contains($0) && steps[$0].kind == .fieldFault }.compactMap { i in
            guard case .node(let n) = steps[i].payload else { return nil }
            return n
        }
        return try render(actions: jsonLines(.action), faults: jsonLines(.fault), failpoints: failpoints, rules: rules, name: name, header: header)
    }

    /// The recorded plan's entries, as schedule.json has them (one JSON object each, keys sorted).
    package func planLines(_ kind: Kind) -> [String] {
        steps.compactMap { step -> String? in
            guard step.kind == kind, case .json(let text) = step.payload else { return nil }
            return text
        }
    }

    /// The recorded scenario with `actions` and `faults` pinned as its plan (lines of
    /// schedule.json, in the order given), every failpoint and field-fault rule kept
    /// (`harness coverage --fuzz`'s inputs).
    package func scenarioYAML(actions: [String], faults: [String], name: String, header: [String] = []) throws -> String {
        let failpoints: [Node] = steps.compactMap { step in
            guard step.kind == .failpoint, case .text(let t) = step.payload else { return nil }
            return Node(t, Tag(.str), .doubleQuoted)
        }
        let rules: [Node] = steps.compactMap { step in
            guard step.kind == .fieldFault, case .node(let n) = step.payload else { return nil }
            return n
        }
        return try render(actions: actions, faults: faults, failpoints: failpoints, rules: rules, name: name, header: header)
    }

    private func render(actions: [String], faults: [String], failpoints: [Node], rules: [Node], name: String, header: [String]) throws -> String {
        guard case .mapping(let original) = root else { throw LoadError(description: "the recorded scenario is not a mapping") }
        var pairs: [(Node, Node)] = []
        for (key, value) in original {
            switch key.string {
            case "name": pairs.append((key, Node(name)))
            case "nemesis", "plan", "failpoints": continue
            case "duration":
                pairs.append((key, durationSeconds.map { Node("\($0)s") } ?? value))
            case "os":
                guard case .mapping(let os) = value else {
                    pairs.append((key, value))
                    continue
                }
                var osPairs: [(Node, Node)] = os.filter { $0.key.string != "faults" }.map { ($0.key, $0.value) }
                if !rules.isEmpty { osPairs.append((Node("faults"), Node(rules, Tag(.seq), .block))) }
                if !osPairs.isEmpty { pairs.append((key, Node(osPairs, Tag(.map), os.style))) }
            default: pairs.append((key, value))
            }
        }
        if !failpoints.isEmpty { pairs.append((Node("failpoints"), Node(failpoints, Tag(.seq), .block))) }
        let body = try Yams.serialize(node: Node(pairs, Tag(.map), .block), width: -1)
        // The plan by hand, one JSON object per line (JSON is YAML's flow style): a step per line
        // reads and diffs better than Yams's block form of nested objects.
        func list(_ key: String, _ lines: [String]) -> String {
            lines.isEmpty ? "  \(key): []\n" : "  \(key):\n" + lines.map { "    - \($0)\n" }.joined()
        }
        let plan = "plan:\n" + list("userActions", actions) + list("faults", faults) + "  summary: \(summaryJSON)\n"
        return header.map { "# " + $0 + "\n" }.joined() + body + plan
    }

    /// A fault and the kept user actions inside its window (`atSeconds...untilSeconds`): the
    /// fault may matter only because it held back what those actions set off, so the same failure
    /// may come from the user acting when the fault ends instead — one step fewer
    /// (`postponing`). Per fault in time order: each action alone, then all of them together.
    package func postponements(of kept: [Int]) -> [(fault: Int, actions: [Int])] {
        var out: [(fault: Int, actions: [Int])] = []
        for f in chronological(kept) where steps[f].kind == .fault {
            guard let from = steps[f].atSeconds, let until = steps[f].untilSeconds else { continue }
            let inside = chronological(kept).filter { i in
                steps[i].kind == .action && steps[i].atSeconds.map { $0 >= from && $0 < until } == true
            }
            out += inside.map { (f, [$0]) }
            if inside.count > 1 { out.append((f, inside)) }
        }
        return out
    }

    /// The input whose steps are `kept` without `fault`, `actions` moved to the moment the fault
    /// ended (their order among themselves kept). Indices of the result count from 0 in `kept`'s
    /// order. Nil when an action's entry cannot be rewritten (not a JSON object with a time).
    package func postponing(_ actions: [Int], to fault: Int, keeping kept: [Int]) -> ShrinkInput? {
        guard let until = steps[fault].untilSeconds else { return nil }
        var out = self
        out.steps = []
        for i in kept where i != fault {
            var step = steps[i]
            if actions.contains(i) {
                guard case .json(let text) = step.payload,
                    var entry = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
                    entry["atDeviceOffsetSeconds"] != nil, let action = entry["action"],
                    let d = try? JSONSerialization.data(withJSONObject: action, options: [.sortedKeys, .withoutEscapingSlashes])
                else { return nil }
                entry["atDeviceOffsetSeconds"] = until
                guard let moved = try? JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys, .withoutEscapingSlashes]) else { return nil }
                let was = step.atSeconds.map(Self.clock) ?? "?"
                step.payload = .json(String(decoding: moved, as: UTF8.self))
                step.atSeconds = until
                step.moved = "moved from \(was): in place of \(steps[fault].summary)"
                step.summary = "at \(Self.clock(until)) user \(String(decoding: d, as: UTF8.self)) (\(step.moved ?? ""))"
            }
            out.steps.append(step)
        }
        return out
    }

    /// An explanation with its UUIDs replaced by `<uuid>` (an app's `UUID()` differs from run to
    /// run, as `harness normalize` knows) and its numbers (times, counts, ids' digits) by `#`.
    package static func signature(_ explanation: String) -> String {
        explanation.replacing(/[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/, with: "<uuid>")
            .replacing(/[0-9]+(\.[0-9]+)?/, with: "#")
    }

    package static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.down))
        return String(format: "+%d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60)
    }
}
