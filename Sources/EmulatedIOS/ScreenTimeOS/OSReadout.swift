import ScreenTimeModel
import OSFiles

/// Records read from one `system/` area, with the files that did not read (never dropped
/// silently: the OS reports them, e.g. as history lines).
public struct OSReadout<Record: Sendable>: Sendable {
    public var records: [Record]
    public var errors: [String]

    public init(records: [Record] = [], errors: [String] = []) {
        self.records = records
        self.errors = errors
    }
}
