// Seed 002 (002_4f3f8b8463fad8b4.txt), lines 247-250: App Group Failure.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: statements; the function is the context.
func seed002AppGroupFallback() {
// ---- BEGIN seed 002 lines 247-250 ----
// Fallback to standard UserDefaults
let fallbackStore = UserDefaults.standard
// Log error for debugging
print("⚠️ App Group unavailable, using fallback storage")
// ---- END seed 002 lines 247-250 ----
_ = fallbackStore
}
