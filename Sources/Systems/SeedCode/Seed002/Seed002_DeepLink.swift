// Seed 002 (002_4f3f8b8463fad8b4.txt), lines 184-191: Deep Link Processing (AppDelegate).
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: a method of the app delegate (`Seed002AppDelegate` in Stubs.swift).
extension Seed002AppDelegate {
// ---- BEGIN seed 002 lines 184-191 ----
func application(_ app: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey : Any] = [:]) -> Bool {
    if url.scheme == "pushin" && url.host == "workout" {
        // Navigate to workout selection
        navigateToWorkoutSelection()
        return true
    }
    return false
}
// ---- END seed 002 lines 184-191 ----
}
