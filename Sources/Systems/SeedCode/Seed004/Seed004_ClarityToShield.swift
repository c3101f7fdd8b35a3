// Seed 004 (004_6cf68614996b47bd.txt), lines 98-109: 3.1 Main App → Shield Extension.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: the main app's statements; `clarityScore` is not shown in the seed.
func seed004WriteClarity(clarityScore: Int) {
// ---- BEGIN seed 004 lines 98-102 ----
// Main App (after calculating new clarity)
let appGroup = UserDefaults(suiteName: "group.com.exit.app")
appGroup?.set(clarityScore, forKey: "clarity_score")
appGroup?.synchronize()

// ---- END seed 004 lines 98-102 ----
}

/// Context: the shield-configuration extension's principal class (not shown in the seed).
class Seed004ClarityShield: ShieldConfigurationDataSource {
// ---- BEGIN seed 004 lines 103-109 ----
// Shield Extension (reads on next trigger)
override func configuration(shielding application: Application) -> ShieldConfiguration {
    let appGroup = UserDefaults(suiteName: "group.com.exit.app")
    let clarity = appGroup?.integer(forKey: "clarity_score") ?? 100
    
    // Use clarity to determine shield appearance
    return ShieldConfiguration() // EDIT line 109 (seed bug)
}
// ---- END seed 004 lines 103-109 ----
}
