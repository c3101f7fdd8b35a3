import Yams

/// How a pack reads its parts of a scenario file. Every reader checks type and bounds and throws a
/// `ScenarioError` at `file:line:column` of the offending node, worded like the core's own errors,
/// so a scenario reads as one strict schema whichever system it names.
public struct ScenarioValue {
    let node: Node
    /// The key path, e.g. `workload.sessions.durationMinutes`.
    public let path: String
    let reader: NodeReader
    /// The scenario's clock and time-zone changes, passed down to nested sections.
    var clock: Scenario.Clock? = nil
    var timeZoneChanges: [Scenario.TimeZoneChange] = []

    /// An error positioned at this value.
    public func error(_ message: String) -> ScenarioError { reader.error(node, message) }

    public func string() throws(ScenarioError) -> String { try reader.string(node, path) }
    public func bool() throws(ScenarioError) -> Bool { try reader.bool(node, path) }
    public func int(in bounds: ClosedRange<Int>) throws(ScenarioError) -> Int { try reader.int(node, path, in: bounds) }
    public func double() throws(ScenarioError) -> Double { try reader.double(node, path) }
    public func nonNegativeDouble() throws(ScenarioError) -> Double { try reader.nonNegativeDouble(node, path) }
    public func positiveDouble(maximum: Double) throws(ScenarioError) -> Double {
        try reader.positiveDouble(node, path, maximum: maximum)
    }
    public func probability() throws(ScenarioError) -> Double { try reader.probability(node, path) }
    /// Whole seconds (`90s`, `15m`, `1h30m`, or a number), > 0.
    public func duration() throws(ScenarioError) -> Int { try reader.duration(node, path) }
    /// `[min, max]` inside `bounds`.
    public func intRange(in bounds: ClosedRange<Int>) throws(ScenarioError) -> ClosedRange<Int> {
        try reader.intRange(node, path, in: bounds)
    }
    /// Distinct non-empty strings.
    public func stringList(nonEmpty: Bool) throws(ScenarioError) -> [String] {
        try reader.stringList(node, path, nonEmpty: nonEmpty)
    }
    public func enumValue<Value: RawRepresentable & CaseIterable>(what: String) throws(ScenarioError) -> Value
    where Value.RawValue == String {
        try reader.enumValue(node, path, what: what)
    }
    /// Distinct values.
    public func enumList<Value: RawRepresentable & CaseIterable & Equatable>(what: String, nonEmpty: Bool) throws(ScenarioError) -> [Value]
    where Value.RawValue == String {
        try reader.enumList(node, path, what: what, nonEmpty: nonEmpty)
    }
    /// A list, each item its own value (`path[i]`).
    public func list(expected: String) throws(ScenarioError) -> [ScenarioValue] {
        try reader.list(node, path, expected: expected).enumerated().map {
            ScenarioValue(node: $1, path: "\(path)[\($0)]", reader: reader, clock: clock, timeZoneChanges: timeZoneChanges)
        }
    }
    /// A mapping whose keys must be among `allowed` (typos are errors, never ignored).
    public func section(allowed: [String]) throws(ScenarioError) -> ScenarioSection {
        var f = try reader.fields(node, path: path, allowed: allowed)
        (f.clock, f.timeZoneChanges) = (clock, timeZoneChanges)
        return ScenarioSection(fields: f)
    }
}

/// A mapping of a scenario file, its keys already checked against the allowed ones.
public struct ScenarioSection {
    let fields: NodeReader.Fields

    public var path: String { fields.path }

    public subscript(key: String) -> ScenarioValue? {
        fields[key].map { ScenarioValue(node: $0, path: qualified(key), reader: fields.reader, clock: fields.clock, timeZoneChanges: fields.timeZoneChanges) }
    }

    public func required(_ key: String) throws(ScenarioError) -> ScenarioValue {
        ScenarioValue(node: try fields.required(key), path: qualified(key), reader: fields.reader, clock: fields.clock, timeZoneChanges: fields.timeZoneChanges)
    }

    /// An error positioned at the mapping itself.
    public func error(_ message: String) -> ScenarioError { fields.reader.error(fields.node, message) }

    func qualified(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
}

/// The top-level keys of a scenario that belong to its system (`SystemDescriptor.scenarioKeys`).
public typealias ScenarioSections = ScenarioSection
