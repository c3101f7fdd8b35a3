// Seed 004 (004_6cf68614996b47bd.txt), lines 33-42: 1.2 Shared Storage Access.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: statements; `value` (written before the seed declares its own `value`) is not shown.
func seed004SharedStorageAccess(value: Int) {
// ---- BEGIN seed 004 lines 33-42 ----
// Swift - Accessing shared storage
let appGroup = "group.com.exit.app"
let defaults = UserDefaults(suiteName: appGroup)

// Write
defaults?.set(value, forKey: "key_name")
defaults?.synchronize()

// Read
let value = defaults?.integer(forKey: "key_name")
// ---- END seed 004 lines 33-42 ----
_ = value
}
