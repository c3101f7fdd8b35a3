// Seed 004 (004_6cf68614996b47bd.txt), lines 116-127: 3.2 Shield Extension → Main App.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: the shield-action extension's principal class (not shown in the seed).
class Seed004ShieldActionExtension: ShieldActionDelegate {
// ---- BEGIN seed 004 lines 116-127 ----
// ShieldAction Extension (button handler)
override func handle(action: ShieldAction, 
                     for application: ApplicationToken, 
                     completionHandler: @escaping (ShieldActionResponse) -> Void) {
    
    let appGroup = UserDefaults(suiteName: "group.com.exit.app")
    appGroup?.set(true, forKey: "intervention_requested")
    appGroup?.set(Application(token: application).bundleIdentifier, forKey: "blocked_app") // EDIT line 123 (seed bug)
    appGroup?.synchronize()
    
    completionHandler(.none)
}
// ---- END seed 004 lines 116-127 ----
}
