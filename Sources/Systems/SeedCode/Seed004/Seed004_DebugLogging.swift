// Seed 004 (004_6cf68614996b47bd.txt), lines 637-656: 8.2 Debug Logging.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

// ---- BEGIN seed 004 lines 637-656 ----
// Enable in extensions during development
#if DEBUG
func logToAppGroup(_ message: String) {
    let defaults = UserDefaults(suiteName: "group.com.exit.app")
    var logs = defaults?.stringArray(forKey: "debug_logs") ?? []
    logs.append("[\(Date())] \(message)")
    
    // Keep only last 50 logs
    if logs.count > 50 {
        logs = Array(logs.suffix(50))
    }
    
    defaults?.set(logs, forKey: "debug_logs")
    defaults?.synchronize()
}
#endif

// Read from main app
// EDIT: removed seed line 655 (not Swift): let logs = await AppGroupStorage.getString('debug_logs');
// EDIT: removed seed line 656 (not Swift): console.log('Extension logs:', logs);
// ---- END seed 004 lines 637-656 ----
