/// One invariant's verdict over a whole run: how many things it looked at and whether all held.
public struct InvariantResult: Codable, Equatable, Sendable {
    public var name: String
    public var passed: Bool
    /// Sessions (or settlements, or runs) the invariant was applied to; 0 means it held vacuously.
    public var checkedCount: Int

    public init(name: String, passed: Bool, checkedCount: Int) {
        self.name = name
        self.passed = passed
        self.checkedCount = checkedCount
    }
}
