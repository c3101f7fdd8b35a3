/// The plain tables the CLI prints (suite runs, merges, explorations, heartbeat replays, samples):
/// every column padded to its widest cell, two spaces between columns.
package enum TextTable {
    package static func render(_ header: [String], _ rows: [[String]]) -> String {
        let widths = header.indices.map { i in max(header[i].count, rows.map { $0[i].count }.max() ?? 0) }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in c.padding(toLength: widths[i], withPad: " ", startingAt: 0) }.joined(separator: "  ")
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }
}
