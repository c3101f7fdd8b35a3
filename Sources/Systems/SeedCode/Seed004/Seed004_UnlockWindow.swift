// Seed 004 (004_6cf68614996b47bd.txt), lines 154-177: 3.3 Main App → Shield Extension (Unlock).
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: the main app's statements.
func seed004WriteUnlock() {
// ---- BEGIN seed 004 lines 154-158 ----
// Main App (after breathing complete)
let appGroup = UserDefaults(suiteName: "group.com.exit.app")
let now = Date().timeIntervalSince1970
appGroup?.set(now, forKey: "unlock_timestamp")
appGroup?.synchronize()
// ---- END seed 004 lines 154-158 ----
}

/// Context: the shield-configuration extension's principal class (not shown in the seed);
/// `lockedConfiguration()` is the app's helper, in Stubs.swift.
class Seed004UnlockShield: ShieldConfigurationDataSource {
// ---- BEGIN seed 004 lines 160-177 ----
// Shield Extension (checks timestamp)
override func configuration(shielding application: Application) -> ShieldConfiguration {
    let appGroup = UserDefaults(suiteName: "group.com.exit.app")
    let unlockTime = appGroup?.double(forKey: "unlock_timestamp") ?? 0
    let now = Date().timeIntervalSince1970
    
    if now - unlockTime < 60 {
        let remaining = Int(60 - (now - unlockTime))
        
        return ShieldConfiguration(
            title: ShieldConfiguration.Label(text: "Access Granted", color: .white), // EDIT line 170 (seed bug)
            subtitle: ShieldConfiguration.Label(text: "\(remaining)s remaining", color: .white) // EDIT line 171 (seed bug)
        )
    }
    
    // Return locked configuration
    return lockedConfiguration()
}
// ---- END seed 004 lines 160-177 ----
}
