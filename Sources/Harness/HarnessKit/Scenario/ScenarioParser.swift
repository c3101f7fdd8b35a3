// Scenario files: YAML → `Scenario`, strictly. Every problem is a `ScenarioError` pointing at
// `file:line:column` of the offending node: unknown keys, wrong types, negative numbers, ranges whose
// min exceeds their max, unknown enum values, bad durations. Keep this comment, docs/SCENARIOS.md
// and the code in step.
//
// Schema (keys not marked "required" may be left out; the value after `=` is the default):
//
//   name: focuspledge               required; [A-Za-z0-9._-]+ (it names run directories)
//   system: focuspledge             required; `harness systems` lists the known systems
//   variants: [as-written, hardened]        = all of the system's variants; non-empty, no repeats
//   clock:
//     mode: virtual                 = virtual; virtual (time steps when the system is idle) or fixed
//     rate: 600                     = 600; device seconds per wall second, 0.001 <= rate <= 100000
//                                   (the clock file's bounds, PROTOCOL.md §2)
//     start: "2026-02-17T08:00:00Z" = that; ISO 8601 with a zone (Z or +01:00)
//     timeZone: Europe/Berlin       = UTC; an IANA time zone identifier
//   duration: 4h                    required; device time the workload covers: 90s, 15m, 4h, 1h30m, 2d,
//                                   or whole seconds; 0 < duration <= 366 days
//   settle: 45m                     = the system's (`harness systems`; FocusPledge 45m); device time
//                                   after the workload for the system to settle before it is
//                                   judged; a duration, > 0
//   <the system's keys>             read by its pack (e.g. focuspledge: workload, server); its
//                                   README in Sources/Systems/<Name>/ documents them
//   nemesis:                        absent = no faults at all
//     enabled: true                 = true (when the block is present)
//     intervalMillis: [40, 120]     = [40, 120]; wall time between faults, 1 <= min <= max <= 600000
//     actions: { kill: 0.5, term: 0.1, stop: 0.4 }     = those; weights >= 0, missing = 0,
//                                   at least one positive when enabled
//     stopMillis: [20, 250]         = [20, 250]; SIGSTOP ... SIGCONT, 0 <= min <= max <= 600000
//     restartDelayMillis: [10, 400] = [10, 400]; down time after kill/term, 0 <= min <= max <= 600000
//     targets: [host-app, ...]       = every role the system lets the nemesis target; non-empty when
//                                   enabled, no repeats
//   os:                             how the emulated iOS behaves: host lifecycle, app categories,
//                                   reboots, field faults (schema in ScenarioOS.swift)
//   invariants:                     = none; promises judged from the history (DeclaredInvariant.swift,
//                                   docs/SCENARIOS.md "Invariants in the scenario")
//   failpoints:                     = none; a list of "label=[p%][n*]action[(ms)]" strings chained
//     - "host-app:defaults:group.x/key#2=kill"      with ->, actions off kill term stop delay error
//                                   (Failpoint.swift, docs/SCENARIOS.md "Failpoints")
//
// Ranges are two-element lists `[min, max]`. Numbers must be YAML numbers (quoted "600" is a string).

import AppGroup
import Foundation
import SystemKit
import Yams

public enum ScenarioParser {
    public static let maximumMinutes = 7 * 24 * 60
    public static let maximumMillis = 600_000
    /// The clock file's bounds (`DeviceClock.Configuration.rateRange`): a rate that parses also runs.
    public static let rateRange = DeviceClock.Configuration.rateRange
    /// The keys every scenario may have; the rest belong to its system.
    public static let commonKeys = ["name", "system", "variants", "clock", "duration", "settle", "nemesis", "os", "user", "failpoints", "plan", "invariants"]
    /// A scenario file is a page of settings; anything this large is a mistake.
    public static let maximumFileBytes = 1 << 20

    /// Reads and parses the scenario at `path`; errors name `path`.
    public static func load(path: String, systems: SystemCatalog) throws(ScenarioError) -> Scenario {
        let data = try readFile(path)
        guard let yaml = String(data: data, encoding: .utf8) else {
            throw ScenarioError(file: path, message: "scenario file is not UTF-8")
        }
        return try parse(yaml: yaml, file: path, systems: systems)
    }

    /// The bytes of the scenario file at `path`: a regular file only (a directory, FIFO, socket or
    /// device is "not a regular file" — a FIFO is opened non-blocking, so no writer is waited for),
    /// at most `maximumFileBytes`. A symlink is followed: the user named it.
    static func readFile(
        _ path: String, what: String = "scenario file", usage: String = "(a scenario is a .yaml file; see docs/SCENARIOS.md)"
    ) throws(ScenarioError) -> Data {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw ScenarioError(file: path, message: "cannot read \(what): \(String(cString: strerror(errno))) \(usage)") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ScenarioError(file: path, message: "cannot read \(what): \(String(cString: strerror(errno))) \(usage)") }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw ScenarioError(file: path, message: "not a regular file (a directory) \(usage)")
        case S_IFIFO: throw ScenarioError(file: path, message: "not a regular file (a FIFO) \(usage)")
        case S_IFCHR: throw ScenarioError(file: path, message: "not a regular file (a character device) \(usage)")
        case S_IFBLK: throw ScenarioError(file: path, message: "not a regular file (a block device) \(usage)")
        case S_IFSOCK: throw ScenarioError(file: path, message: "not a regular file (a socket) \(usage)")
        default: throw ScenarioError(file: path, message: "not a regular file \(usage)")
        }
        guard st.st_size <= maximumFileBytes else {
            throw ScenarioError(file: path, message: "\(what) is larger than \(maximumFileBytes) bytes")
        }
        var bytes = [UInt8](repeating: 0, count: maximumFileBytes + 1)
        var total = 0
        while total < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + total, $0.count - total) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ScenarioError(file: path, message: "cannot read \(what): \(String(cString: strerror(errno))) \(usage)")
            }
            if n == 0 { break }
            total += n
        }
        guard total <= maximumFileBytes else { throw ScenarioError(file: path, message: "\(what) is larger than \(maximumFileBytes) bytes") }
        return Data(bytes[..<total])
    }

    /// Parses scenario YAML; `file` is only used to label errors.
    public static func parse(yaml: String, file: String, systems: SystemCatalog) throws(ScenarioError) -> Scenario {
        let root = try compose(yaml: yaml, file: file, what: "scenario file")
        // Not a mapping: most likely not a scenario at all (a symlink to /etc/passwd, a token
        // file). Say what it is, never what it holds.
        guard case .mapping = root else {
            throw ScenarioError(file: file, line: 1, column: 1, message: "not a scenario: a scenario is a mapping of keys (name, system, duration, …), this file is \(NodeReader.kind(root)) (see docs/SCENARIOS.md)")
        }
        return try NodeReader(file: file).scenario(root, systems: systems)
    }
}

extension ScenarioParser {
    /// The YAML's root node; invalid YAML and an empty file are errors at their place.
    static func compose(yaml: String, file: String, what: String) throws(ScenarioError) -> Node {
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch let error as YamlError {
            throw ScenarioError(yaml: error, file: file)
        } catch {
            throw ScenarioError(file: file, message: "invalid YAML: \(Excerpt.inner(String(describing: error)))")
        }
        guard let root else { throw ScenarioError(file: file, line: 1, column: 1, message: "\(what) is empty") }
        return root
    }
}

extension Scenario {
    /// `ScenarioParser.load(path:systems:)`.
    public static func load(path: String, systems: SystemCatalog) throws(ScenarioError) -> Scenario {
        try ScenarioParser.load(path: path, systems: systems)
    }

    /// `ScenarioParser.parse(yaml:file:systems:)`.
    public static func parse(yaml: String, file: String = "<scenario>", systems: SystemCatalog) throws(ScenarioError) -> Scenario {
        try ScenarioParser.parse(yaml: yaml, file: file, systems: systems)
    }
}

extension ScenarioError {
    init(yaml error: YamlError, file: String) {
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _),
             let .composer(context, problem, mark, _):
            let detail = context.map { "\($0.text): " } ?? ""
            self.init(file: file, line: mark.line, column: mark.column, message: "invalid YAML: \(detail)\(problem)")
        case let .duplicatedKeysInMapping(duplicates, context):
            let keys = duplicates.sorted().map { "'\(Excerpt.inner($0))'" }.joined(separator: ", ")
            self.init(
                file: file, line: context.mark.line, column: context.mark.column,
                message: "duplicate key \(keys) in one mapping"
            )
        case let .reader(problem, offset, value, yaml):
            // Yams's own description quotes the whole line (a secret, or with /proc/self/environ the
            // environment): say where and which character, never the text around it.
            let character = value >= 0 ? String(format: "here U+%04X; ", value) : ""
            if let offset, offset >= 0 {
                let before = yaml.utf8.prefix(offset)
                let line = before.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
                let column = before.count - (before.lastIndex(of: 0x0A).map { before.distance(from: before.startIndex, to: $0) + 1 } ?? 0) + 1
                self.init(file: file, line: line, column: column, message: "invalid YAML: \(Excerpt.inner(problem)) (\(character)a scenario is printable UTF-8 text)")
            } else {
                self.init(file: file, message: "invalid YAML: \(Excerpt.inner(problem)) (\(character)a scenario is printable UTF-8 text)")
            }
        default:
            self.init(file: file, message: "invalid YAML: \(Excerpt.inner(String(describing: error)))")
        }
    }
}

/// Reads typed values out of composed nodes, turning every mismatch into a positioned error.
struct NodeReader {
    let file: String

    func error(_ node: Node?, _ message: String) -> ScenarioError {
        ScenarioError(file: file, line: node?.mark?.line, column: node?.mark?.column, message: message)
    }

    // MARK: - The schema

    func scenario(_ root: Node, systems: SystemCatalog) throws(ScenarioError) -> Scenario {
        // The system decides which other keys are allowed: read it first.
        let keys = try fields(root, path: "", allowed: nil)
        let systemNode = try keys.required("system")
        let systemId = try string(systemNode, "system")
        guard let system = systems.pack(systemId) else {
            throw error(systemNode, "system: unknown system \(Excerpt.quoted(systemId)); known: \(systems.ids.joined(separator: ", "))")
        }
        let top = try fields(root, path: "", allowed: ScenarioParser.commonKeys + system.descriptor.scenarioKeys)
        let nameNode = try top.required("name")
        let name = try string(nameNode, "name")
        let nameCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !name.isEmpty, name.count <= 100, name.allSatisfy({ nameCharacters.contains($0) }) else {
            throw error(nameNode, "name: \(Excerpt.quoted(name)) must be 1...100 characters of A-Z a-z 0-9 . _ -")
        }

        let known = system.descriptor.variants
        var variants = known.map(ScenarioVariant.init(rawValue:))
        if let node = top["variants"] {
            let listed = try stringList(node, "variants", nonEmpty: true)
            for (variant, variantNode) in zip(listed, node.array()) where !known.contains(variant) {
                throw error(variantNode, "variants: unknown variant '\(Excerpt.inner(variant))'; \(system.id) has: \(known.joined(separator: ", "))")
            }
            variants = listed.map(ScenarioVariant.init(rawValue:))
        }

        let clock = try self.clock(top["clock"])
        let durationSeconds = try duration(try top.required("duration"), "duration")
        var settleSeconds = system.descriptor.defaultSettleSeconds
        if let node = top["settle"] { settleSeconds = try duration(node, "settle") }
        let nemesis = try self.nemesis(top["nemesis"], targets: system.descriptor.nemesisTargets)
        let extensionPoints = Set(system.descriptor.roles.compactMap { role -> ExtensionPoint? in
            if case .extension(let point) = role.lifetime { return point } else { return nil }
        })
        let os = try self.os(
            top["os"], start: clock.start, roles: system.descriptor.roles.filter { $0.lifetime != .server }.map(\.name),
            faultContext: .init(durationSeconds: durationSeconds, extensionPoints: extensionPoints))
        var sections = top
        (sections.clock, sections.timeZoneChanges) = (clock, os.timeZoneChanges)  // for local times of day (LocalTimeSchedule)
        let configuration = try system.configuration(from: ScenarioSection(fields: sections))
        var scenario = Scenario(
            name: name, system: system, variants: variants, clock: clock, durationSeconds: durationSeconds,
            settleSeconds: settleSeconds, nemesis: nemesis, configuration: configuration)
        scenario.os = os
        if let node = top["user"] {
            let user = try fields(node, path: "user", allowed: ["retry"])
            if let v = user["retry"] {
                // A probability is a YAML number, `always`/`never` a string.
                guard case .scalar(let scalar) = v, let retry = UserRetry(scalar.string) else {
                    throw error(v, "user.retry: expected \(UserRetry.accepted), got \(describe(v))")
                }
                scenario.userRetry = retry
            }
        }
        if let node = top["failpoints"] {
            scenario.failpoints = try failpoints(node, descriptor: system.descriptor)
        }
        if let node = top["invariants"] {
            scenario.declaredInvariants = try declaredInvariants(node, descriptor: system.descriptor)
        }
        if let node = top["plan"] {
            scenario.pinnedPlan = try pinnedPlan(node, system: system, clock: clock, durationSeconds: durationSeconds)
        }
        // Dates and offsets the run could not keep: found here, not as a hang or UNDECIDED later.
        if let (key, message) = ScenarioTimeline.problem(scenario, durationSeconds: durationSeconds) {
            let parts = key.split(separator: ".").map(String.init)
            let section = parts.count == 2 ? (try? fields(top[parts[0]] ?? root, path: parts[0], allowed: nil)) : nil
            throw error(section?[parts[1]] ?? top["duration"], "\(key): \(message)")
        }
        return scenario
    }

    /// `failpoints:` — each entry parsed, an error pointing at the character that is wrong.
    func failpoints(_ node: Node, descriptor: SystemDescriptor) throws(ScenarioError) -> [Failpoint] {
        let items = try list(node, "failpoints", expected: "a list of strings like \"host-app:defaults:group.x/key#2=kill\"")
        var out: [Failpoint] = []
        for item in items {
            let text = try string(item, "failpoints")
            do {
                let point = try Failpoint.parse(text, processes: descriptor.crashPointProcesses)
                if let never = FailpointReach.problem(point, in: descriptor) { throw never }
                if out.contains(where: { $0.label == point.label && $0.occurrence == point.occurrence }) {
                    throw error(item, "failpoints: \(Excerpt.quoted(point.label + (point.occurrence.map { "#\($0)" } ?? ""))) is armed twice; chain the actions with -> instead")
                }
                out.append(point)
            } catch let e as Failpoint.ParseError {
                // A plain scalar starts at its mark; a quoted one one column later.
                var column = item.mark?.column
                if case .scalar(let scalar) = item, scalar.style != .plain && scalar.style != .any { column = column.map { $0 + 1 } }
                throw ScenarioError(file: file, line: item.mark?.line, column: column.map { $0 + e.offset }, message: "failpoints: \(e.message)")
            } catch let e as ScenarioError {
                throw e
            } catch {
                throw self.error(item, "failpoints: \(error)")
            }
        }
        return out
    }

    func clock(_ node: Node?) throws(ScenarioError) -> Scenario.Clock {
        var clock = Scenario.Clock(rate: 600, start: Date(timeIntervalSince1970: 1_771_315_200), timeZone: "UTC")
        guard let node else { return clock }
        let section = try fields(node, path: "clock", allowed: ["mode", "rate", "start", "timeZone"])
        if let value = section["mode"] {
            clock.mode = try enumValue(value, "clock.mode", what: "clock mode")
        }
        if let value = section["rate"] {
            clock.rate = try positiveDouble(value, "clock.rate", maximum: ScenarioParser.rateRange.upperBound)
            guard clock.rate >= ScenarioParser.rateRange.lowerBound else {
                throw error(value, "clock.rate: must be at least \(ScenarioParser.rateRange.lowerBound), got \(clock.rate)")
            }
        }
        if let value = section["start"] {
            // Unquoted, YAML resolves an ISO date to a timestamp; quoted, to a string: take either's text.
            guard case .scalar(let scalar) = value, [.str, .timestamp].contains(value.tagName) else {
                throw error(value, "clock.start: expected an ISO 8601 time with a zone like \"2026-02-17T08:00:00Z\", got \(describe(value))")
            }
            switch ScenarioTimeline.parseDate(scalar.string) {
            case .success(let date):
                // The device clock counts whole milliseconds (history `t`, the servers' UnixMillis):
                // a finer start put every deadline between two ticks and stalled the run.
                let millis = date.timeIntervalSince1970 * 1000
                guard abs(millis - millis.rounded()) < 0.001 else {
                    throw error(value, "clock.start: \(Excerpt.quoted(scalar.string)) is finer than a millisecond, the device clock's tick; give at most three digits after the seconds")
                }
                clock.start = date
            case .failure(let why): throw error(value, "clock.start: \(why.reason)")
            }
        }
        if let value = section["timeZone"] {
            let identifier = try string(value, "clock.timeZone")
            guard TimeZone(identifier: identifier) != nil else {
                throw error(value, "clock.timeZone: unknown time zone '\(Excerpt.inner(identifier))' (use an IANA name like Europe/Berlin)")
            }
            clock.timeZone = identifier
        }
        return clock
    }

    func nemesis(_ node: Node?, targets known: [String]) throws(ScenarioError) -> Scenario.Nemesis {
        guard let node else { return .disabled(targets: known) }
        let section = try fields(
            node, path: "nemesis",
            allowed: ["enabled", "intervalMillis", "actions", "stopMillis", "restartDelayMillis", "targets"]
        )
        var nemesis = Scenario.Nemesis.disabled(targets: known)
        nemesis.enabled = true
        if let value = section["enabled"] {
            nemesis.enabled = try bool(value, "nemesis.enabled")
        }
        let millis = 0...ScenarioParser.maximumMillis
        if let value = section["intervalMillis"] {
            // At least 1 ms apart: a zero interval would schedule unboundedly many faults.
            nemesis.intervalMillis = try intRange(value, "nemesis.intervalMillis", in: 1...ScenarioParser.maximumMillis)
        }
        if let value = section["stopMillis"] {
            nemesis.stopMillis = try intRange(value, "nemesis.stopMillis", in: millis)
        }
        if let value = section["restartDelayMillis"] {
            nemesis.restartDelayMillis = try intRange(value, "nemesis.restartDelayMillis", in: millis)
        }
        if let value = section["actions"] {
            let actions = try fields(value, path: "nemesis.actions", allowed: FaultKind.allCases.map(\.rawValue))
            var weights = Scenario.FaultWeights(kill: 0, term: 0, stop: 0)
            if let weight = actions["kill"] { weights.kill = try nonNegativeDouble(weight, "nemesis.actions.kill") }
            if let weight = actions["term"] { weights.term = try nonNegativeDouble(weight, "nemesis.actions.term") }
            if let weight = actions["stop"] { weights.stop = try nonNegativeDouble(weight, "nemesis.actions.stop") }
            if nemesis.enabled && weights.kill + weights.term + weights.stop <= 0 {
                throw error(value, "nemesis.actions: at least one weight must be positive while the nemesis is enabled")
            }
            nemesis.weights = weights
        }
        if let value = section["targets"] {
            let targets = try stringList(value, "nemesis.targets", nonEmpty: nemesis.enabled)
            for (target, targetNode) in zip(targets, value.array()) where !known.contains(target) {
                throw error(targetNode, "nemesis.targets: unknown target '\(Excerpt.inner(target))'; this system's targets: \(known.joined(separator: ", "))")
            }
            nemesis.targets = targets
        }
        return nemesis
    }

    // MARK: - Mappings

    struct Fields {
        let node: Node
        let path: String
        let reader: NodeReader
        let values: [String: Node]
        /// The scenario's clock and time-zone changes, carried to the pack's sections.
        var clock: Scenario.Clock?
        var timeZoneChanges: [Scenario.TimeZoneChange] = []

        subscript(key: String) -> Node? { values[key] }

        func required(_ key: String) throws(ScenarioError) -> Node {
            guard let value = values[key] else {
                let place = path.isEmpty ? "the scenario" : path
                throw reader.error(node, "missing required key '\(key)' in \(place)")
            }
            return value
        }
    }

    /// `allowed` nil = any key (still: plain names, no duplicates).
    func fields(_ node: Node, path: String, allowed: [String]?) throws(ScenarioError) -> Fields {
        guard case .mapping(let mapping) = node else {
            let place = path.isEmpty ? "the scenario" : path
            throw error(node, "\(place): expected a mapping of keys to values, got \(describe(node))")
        }
        var values: [String: Node] = [:]
        for (keyNode, value) in mapping {
            guard case .scalar(let key) = keyNode, keyNode.tagName == .str else {
                throw error(keyNode, "keys must be plain names, got \(describe(keyNode))")
            }
            let qualified = Excerpt.quoted(path.isEmpty ? key.string : "\(path).\(key.string)", limit: 60).dropFirst().dropLast()
            if let allowed, !allowed.contains(key.string) {
                throw error(keyNode, "unknown key '\(qualified)'; expected one of: \(allowed.joined(separator: ", "))")
            }
            guard values[key.string] == nil else {
                throw error(keyNode, "duplicate key '\(qualified)'")
            }
            values[key.string] = value
        }
        return Fields(node: node, path: path, reader: self, values: values)
    }

    // MARK: - Scalars

    /// What a node is, without its contents (for a file that is not a scenario at all).
    static func kind(_ node: Node) -> String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        case .scalar(let scalar): return "a single value of \(scalar.string.utf8.count) bytes"
        }
    }

    /// What a node is, with at most an 80-character escaped excerpt of a value (an
    /// error never echoes a whole value or file).
    func describe(_ node: Node) -> String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        case .scalar(let scalar):
            switch node.tagName {
            case .null: return "null"
            case .bool: return "the boolean \(Excerpt.quoted(scalar.string).dropFirst().dropLast())"
            case .int, .float: return "the number \(Excerpt.quoted(scalar.string).dropFirst().dropLast())"
            default: return "the string \(Excerpt.quoted(scalar.string))"
            }
        }
    }

    func string(_ node: Node, _ path: String) throws(ScenarioError) -> String {
        guard case .scalar(let scalar) = node, node.tagName == .str else {
            throw error(node, "\(path): expected a string, got \(describe(node))")
        }
        return scalar.string
    }

    func bool(_ node: Node, _ path: String) throws(ScenarioError) -> Bool {
        guard node.tagName == .bool, let value = node.bool else {
            throw error(node, "\(path): expected true or false, got \(describe(node))")
        }
        return value
    }

    func int(_ node: Node, _ path: String, in bounds: ClosedRange<Int>) throws(ScenarioError) -> Int {
        guard case .scalar(let scalar) = node, node.tagName == .int || node.tagName == .float,
              let value = Int(scalar.string)
        else {
            throw error(node, "\(path): expected a whole number, got \(describe(node))")
        }
        try check(value, node, path, in: bounds)
        return value
    }

    func check(_ value: Int, _ node: Node, _ path: String, in bounds: ClosedRange<Int>) throws(ScenarioError) {
        if value < 0 && bounds.lowerBound >= 0 {
            throw error(node, "\(path): must not be negative, got \(value)")
        }
        guard bounds.contains(value) else {
            throw error(node, "\(path): must be in \(bounds.lowerBound)...\(bounds.upperBound), got \(value)")
        }
    }

    func double(_ node: Node, _ path: String) throws(ScenarioError) -> Double {
        guard case .scalar(let scalar) = node, node.tagName == .int || node.tagName == .float,
              let value = Double(scalar.string)
        else {
            throw error(node, "\(path): expected a number, got \(describe(node))")
        }
        // 1e400 is a YAML number, but no 64-bit float: say so, not "expected a number".
        guard value.isFinite else {
            throw error(node, "\(path): \(Excerpt.quoted(scalar.string)) is out of range for a number (at most about 1.8e308)")
        }
        return value
    }

    func nonNegativeDouble(_ node: Node, _ path: String) throws(ScenarioError) -> Double {
        let value = try double(node, path)
        guard value >= 0 else { throw error(node, "\(path): must not be negative, got \(value)") }
        return value
    }

    func positiveDouble(_ node: Node, _ path: String, maximum: Double) throws(ScenarioError) -> Double {
        if case .scalar(let scalar) = node, node.tagName == .float, let v = Double(scalar.string), v == .infinity {
            throw error(node, "\(path): must be greater than 0 and at most \(maximum), got \(Excerpt.quoted(scalar.string, limit: 24))")
        }
        let value = try double(node, path)
        guard value >= 0 else { throw error(node, "\(path): must not be negative, got \(value)") }
        guard value > 0, value <= maximum else {
            throw error(node, "\(path): must be greater than 0 and at most \(maximum), got \(value)")
        }
        return value
    }

    func probability(_ node: Node, _ path: String) throws(ScenarioError) -> Double {
        let value = try nonNegativeDouble(node, path)
        guard value <= 1 else { throw error(node, "\(path): a probability is at most 1, got \(value)") }
        return value
    }

    func duration(_ node: Node, _ path: String) throws(ScenarioError) -> Int {
        let usage = "use e.g. 90s, 15m, 4h, 1h30m, 2d or a whole number of seconds"
        guard case .scalar(let scalar) = node, [.int, .str].contains(node.tagName) else {
            throw error(node, "\(path): expected a duration (\(usage)), got \(describe(node))")
        }
        let text = scalar.string.trimmingWhitespace()
        if text.hasPrefix("-") {
            throw error(node, "\(path): a duration must not be negative, got '\(Excerpt.inner(text))'")
        }
        guard let seconds = ScenarioDuration.seconds(from: text) else {
            throw error(node, "\(path): bad duration '\(Excerpt.inner(text))' (\(usage); at most \(ScenarioDuration.maximumSeconds)s)")
        }
        guard seconds > 0 else { throw error(node, "\(path): must be longer than 0 seconds") }
        return seconds
    }

    // MARK: - Lists

    func list(_ node: Node, _ path: String, expected: String) throws(ScenarioError) -> [Node] {
        guard case .sequence(let sequence) = node else {
            throw error(node, "\(path): expected \(expected), got \(describe(node))")
        }
        return Array(sequence)
    }

    /// `[min, max]` with `bounds.lowerBound <= min <= max <= bounds.upperBound`.
    func intRange(_ node: Node, _ path: String, in bounds: ClosedRange<Int>) throws(ScenarioError) -> ClosedRange<Int> {
        let expected = "a [min, max] list of two whole numbers"
        let items = try list(node, path, expected: expected)
        guard items.count == 2 else {
            throw error(node, "\(path): expected \(expected), got a list of \(items.count)")
        }
        let minimum = try int(items[0], "\(path) min", in: bounds)
        let maximum = try int(items[1], "\(path) max", in: bounds)
        guard minimum <= maximum else {
            throw error(node, "\(path): min \(minimum) is greater than max \(maximum)")
        }
        return minimum...maximum
    }

    func stringList(_ node: Node, _ path: String, nonEmpty: Bool) throws(ScenarioError) -> [String] {
        let items = try list(node, path, expected: "a list of strings")
        if nonEmpty && items.isEmpty { throw error(node, "\(path): must not be empty") }
        var values: [String] = []
        for item in items {
            let value = try string(item, path)
            guard !value.isEmpty else { throw error(item, "\(path): empty string") }
            guard !values.contains(value) else { throw error(item, "\(path): '\(Excerpt.inner(value))' is listed twice") }
            values.append(value)
        }
        return values
    }

    func enumValue<Value: RawRepresentable & CaseIterable>(
        _ node: Node, _ path: String, what: String
    ) throws(ScenarioError) -> Value where Value.RawValue == String {
        let known = Value.allCases.map(\.rawValue).joined(separator: ", ")
        guard case .scalar(let scalar) = node, node.tagName == .str else {
            throw error(node, "\(path): expected one of \(known), got \(describe(node))")
        }
        guard let value = Value(rawValue: scalar.string) else {
            throw error(node, "\(path): unknown \(what) '\(Excerpt.inner(scalar.string))'; known: \(known)")
        }
        return value
    }

    func enumList<Value: RawRepresentable & CaseIterable & Equatable>(
        _ node: Node, _ path: String, what: String, nonEmpty: Bool
    ) throws(ScenarioError) -> [Value] where Value.RawValue == String {
        let known = Value.allCases.map(\.rawValue).joined(separator: ", ")
        let items = try list(node, path, expected: "a list of: \(known)")
        if nonEmpty && items.isEmpty { throw error(node, "\(path): must not be empty") }
        var values: [Value] = []
        for item in items {
            let value: Value = try enumValue(item, path, what: what)
            guard !values.contains(value) else { throw error(item, "\(path): '\(value.rawValue)' is listed twice") }
            values.append(value)
        }
        return values
    }
}

extension Node {
    /// The resolved tag (`Tag.name` is internal to Yams; its raw value is not).
    var tagName: Tag.Name { Tag.Name(rawValue: tag.rawValue) }
}
