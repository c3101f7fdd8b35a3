import History
import OSLog

/// The app code's `Logger` and `os_log` lines, as lines of its process's trace (`os_log`,
/// EMULATED-IOS.md §7.11): in the history beside what the process did, and on its lane in report.html.
enum OSLogTrace {
    /// Longest message kept in the trace; the rest is cut with `…`.
    static let maxMessageCharacters = 400

    static func install(_ trace: TraceLog) {
        OSLogSink.handler = { level, subsystem, category, message in
            let text = message.count > maxMessageCharacters ? String(message.prefix(maxMessageCharacters)) + "…" : message
            trace.log("os_log", ["level": level, "subsystem": subsystem, "category": category, "message": text])
        }
    }
}
