/// Everything wrong with a scenario file, as one line a person can click on:
/// `file:line:column: message` (or `file: message` when there is no position, e.g. unreadable file).
public struct ScenarioError: Error, CustomStringConvertible, Equatable, Sendable {
    public var file: String
    /// 1-based, like compilers and editors; nil when the problem has no position in the file.
    public var line: Int?
    public var column: Int?
    public var message: String

    public init(file: String, line: Int? = nil, column: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    public static let maximumMessageCharacters = 400

    public var description: String {
        // One line, always: a message carrying a newline would break `file:line: message` tooling.
        // A backstop for messages built elsewhere (a pack's section reader): values in them are
        // meant to be excerpts already; no message is longer than `maximumMessageCharacters`.
        var oneLine = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        if oneLine.count > Self.maximumMessageCharacters { oneLine = String(oneLine.prefix(Self.maximumMessageCharacters)) + "…" }
        switch (line, column) {
        case let (line?, column?): return "\(file):\(line):\(column): \(oneLine)"
        case let (line?, nil): return "\(file):\(line): \(oneLine)"
        default: return "\(file): \(oneLine)"
        }
    }
}
