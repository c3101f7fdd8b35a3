import AppGroup
import Foundation
import Yams

/// A scenario's `plan:` section: the user's actions and the nemesis's faults written out, instead
/// of what the pack and the nemesis would plan from the seed. `harness shrink` writes one (the
/// few steps that still fail); a user may write one by hand for a regression scenario. The seed
/// still decides what is random inside the run (field faults with a probability, `p%` failpoints).
///
/// ```yaml
/// plan:
///   userActions:
///     - {"atDeviceOffsetSeconds": 120, "action": {"kind": "startSession", "sessionId": "s-1-1", "durationMinutes": 30}}
///   faults:
///     - {"atDeviceOffsetMillis": 128405, "holdDeviceMillis": 125879, "kind": "stop", "target": "host-app"}
/// ```
///
/// Entries are exactly what `schedule.json` records (`userActions`, `faults`), so a line of a run's
/// schedule can be pasted. A missing list is empty: with `plan:` present the nemesis plans nothing.
/// `summary:` holds the pack's own keys of `schedule.json` (FocusPledge's server reads its
/// `sessions` there), written back into the run's `schedule.json` as they are.
public struct PinnedPlan: Sendable, Equatable {
    public var workload: AnyWorkloadPlan
    public var faults: [PlannedFault]

    public init(workload: AnyWorkloadPlan, faults: [PlannedFault]) {
        self.workload = workload
        self.faults = faults
    }

    /// The actions and faults that fit a run of `deviceSeconds` whose faults span `spanMillis`
    /// (a shorter `--duration` drops what would fall after it).
    func within(deviceSeconds: Int, spanMillis: Int) -> (AnyWorkloadPlan, [PlannedFault]) {
        let kept = workload.actionTimes.filter { $0 <= Double(deviceSeconds) }.count
        return (workload.prefix(kept), faults.filter { $0.endOffsetMillis <= spanMillis })
    }

    /// An entry of `plan.userActions` a pack could not read.
    public struct EntryError: Error, Sendable {
        public var index: Int
        public var message: String
    }

    /// A decoding error in one line, naming the key at fault.
    static func describe(_ error: any Error) -> String {
        func path(_ c: [any CodingKey]) -> String {
            c.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let ctx)?:
            let at = path(ctx.codingPath)
            return "missing key '\(key.stringValue)'" + (at.isEmpty ? "" : " in \(at)")
        case .typeMismatch(_, let ctx)?, .valueNotFound(_, let ctx)?, .dataCorrupted(let ctx)?:
            let at = path(ctx.codingPath)
            return (at.isEmpty ? "" : "\(at): ") + ctx.debugDescription
        default:
            return "\(error)"
        }
    }

    /// Upper bound on the entries of one list (a plan is a page of steps, not a log).
    public static let maximumEntries = 100_000
}

extension NodeReader {
    /// `plan:` — each entry read as the pack's action or a `PlannedFault`, checked against the
    /// scenario (order, time base, targets, the run's span); errors point at the entry.
    func pinnedPlan(
        _ node: Node, system: AnySystemPack, clock: Scenario.Clock, durationSeconds: Int
    ) throws(ScenarioError) -> PinnedPlan {
        let section = try fields(node, path: "plan", allowed: ["userActions", "faults", "summary"])
        var summary: [String: JSONValue] = [:]
        if let v = section["summary"] {
            guard case .object(let o) = try jsonValue(v, "plan.summary") else {
                throw error(v, "plan.summary: expected the pack's summary keys of schedule.json as a mapping, found \(NodeReader.kind(v))")
            }
            summary = o
        }
        var actionNodes: [Node] = []
        if let v = section["userActions"] {
            actionNodes = try list(v, "plan.userActions", expected: "a list of {atDeviceOffsetSeconds, action} objects as schedule.json records them")
        }
        var faultNodes: [Node] = []
        if let v = section["faults"] {
            faultNodes = try list(v, "plan.faults", expected: "a list of faults as schedule.json records them")
        }
        for (key, nodes) in [("plan.userActions", actionNodes), ("plan.faults", faultNodes)] where nodes.count > PinnedPlan.maximumEntries {
            throw error(nodes[PinnedPlan.maximumEntries], "\(key): more than \(PinnedPlan.maximumEntries) entries")
        }
        var entries: [Data] = []
        var times: [Double] = []
        for (i, item) in actionNodes.enumerated() {
            let data = try json(item, "plan.userActions[\(i)]")
            entries.append(data)
            var offset: Double?
            if case .object(let o) = try jsonValue(item, "plan.userActions[\(i)]") {
                switch o["atDeviceOffsetSeconds"] {
                case .int(let n)?: offset = Double(n)
                case .double(let d)?: offset = d
                default: offset = nil
                }
            }
            guard let at = offset, at.isFinite else {
                throw error(item, "plan.userActions[\(i)]: needs atDeviceOffsetSeconds, a number of device seconds from clock.start")
            }
            guard (0...Double(durationSeconds)).contains(at) else {
                throw error(item, "plan.userActions[\(i)]: atDeviceOffsetSeconds \(at) is outside the run's 0...\(durationSeconds) s (duration)")
            }
            if let last = times.last, at < last {
                throw error(item, "plan.userActions[\(i)]: at \(at) s comes before the entry above it (\(last) s); list the actions in time order")
            }
            times.append(at)
        }
        let workload: AnyWorkloadPlan
        do {
            workload = try system.pinnedWorkload(entries, summary: summary)
        } catch {
            throw self.error(actionNodes[error.index], "plan.userActions[\(error.index)]: \(error.message)")
        }

        let base: PlannedFault.TimeBase = clock.mode == .virtual ? .device : .wall
        let span = base == .device ? durationSeconds * 1000 : Int(Double(durationSeconds) / clock.rate * 1000)
        let targets = system.descriptor.nemesisTargets
        var faults: [PlannedFault] = []
        var busyUntil: [String: Int] = [:]
        for (i, item) in faultNodes.enumerated() {
            let path = "plan.faults[\(i)]"
            let fault: PlannedFault
            do {
                fault = try JSONDecoder().decode(PlannedFault.self, from: try json(item, path))
            } catch let e as ScenarioError {
                throw e
            } catch {
                throw self.error(item, "\(path): not a fault (target, kind, atDeviceOffsetMillis, holdDeviceMillis): \(PinnedPlan.describe(error))")
            }
            guard fault.timeBase == base else {
                throw self.error(item, base == .device
                    ? "\(path): the clock is virtual, so faults are in device time: atDeviceOffsetMillis and holdDeviceMillis"
                    : "\(path): the clock is fixed, so faults are in wall time: atWallOffsetMillis and holdMillis")
            }
            guard targets.contains(fault.target) else {
                throw self.error(item, "\(path): unknown target \(Excerpt.quoted(fault.target)); \(system.id) has: \(targets.joined(separator: ", "))")
            }
            guard fault.atOffsetMillis >= 0, fault.holdMillis >= 0, fault.endOffsetMillis <= span else {
                throw self.error(item, "\(path): the fault must start and end inside the run's 0...\(span) ms")
            }
            if let last = faults.last, fault.atOffsetMillis < last.atOffsetMillis {
                throw self.error(item, "\(path): starts before the fault above it; list the faults in time order")
            }
            if let busy = busyUntil[fault.target], fault.atOffsetMillis < busy {
                throw self.error(item, "\(path): \(fault.target) is still down or stopped by an earlier fault until \(busy) ms; faults on one target may not overlap")
            }
            busyUntil[fault.target] = fault.endOffsetMillis
            faults.append(fault)
        }
        return PinnedPlan(workload: workload, faults: faults)
    }

    /// A YAML node as a JSON value: mappings with string keys, sequences, and scalars by their
    /// resolved tag (a quoted `"12"` stays a string).
    func jsonValue(_ node: Node, _ path: String, depth: Int = 0) throws(ScenarioError) -> JSONValue {
        guard depth < 32 else { throw error(node, "\(path): nested too deeply") }
        switch node {
        case .mapping(let m):
            var out: [String: JSONValue] = [:]
            for (k, v) in m {
                guard case .scalar(let key) = k else { throw error(k, "\(path): keys must be strings") }
                out[key.string] = try jsonValue(v, path, depth: depth + 1)
            }
            return .object(out)
        case .sequence(let s):
            var out: [JSONValue] = []
            for v in s { out.append(try jsonValue(v, path, depth: depth + 1)) }
            return .array(out)
        case .scalar(let s):
            switch node.tagName {
            case .null: return .null
            case .bool: if let b = node.bool { return .bool(b) }
            case .int: if let i = node.int { return .int(i) }
            case .float: if let d = node.float, d.isFinite { return .double(d) }
            default: break
            }
            return .string(s.string)
        case .alias:
            throw error(node, "\(path): YAML aliases are not allowed here")
        }
    }

    /// An object node as JSON bytes (what a pack's `Decodable` action reads).
    func json(_ node: Node, _ path: String) throws(ScenarioError) -> Data {
        let value = try jsonValue(node, path)
        guard case .object = value else { throw error(node, "\(path): expected an object ({...}), found \(NodeReader.kind(node))") }
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw self.error(node, "\(path): cannot be read as JSON: \(error)")
        }
    }
}

/// A JSON value as a scenario's `plan:` carries it (the pack's summary keys of `schedule.json`,
/// kept as they were and written back unchanged).
public enum JSONValue: Sendable, Equatable, Encodable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let o):
            var c = encoder.container(keyedBy: Key.self)
            for (k, v) in o { try c.encode(v, forKey: Key(k)) }
        case .array(let a):
            var c = encoder.unkeyedContainer()
            for v in a { try c.encode(v) }
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .int(let i):
            var c = encoder.singleValueContainer()
            try c.encode(i)
        case .double(let d):
            var c = encoder.singleValueContainer()
            try c.encode(d)
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        }
    }
}
