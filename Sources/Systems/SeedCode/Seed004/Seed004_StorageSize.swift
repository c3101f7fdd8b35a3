// Seed 004 (004_6cf68614996b47bd.txt), lines 610-619: 7.3 Memory Limits (storage size).
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: statements; `sizeOfDirectory(at:)` and `cleanupOldData()` are the app's helpers (Stubs.swift).
func seed004CheckStorageSize() {
// ---- BEGIN seed 004 lines 610-619 ----
// Check storage size
if let containerURL = FileManager.default.containerURL(
    forSecurityApplicationGroupIdentifier: "group.com.exit.app"
) {
    let size = try? FileManager.default.sizeOfDirectory(at: containerURL)
    if let size = size, size > 50_000_000 { // 50MB
        // Trigger cleanup
        cleanupOldData()
    }
}
// ---- END seed 004 lines 610-619 ----
}
