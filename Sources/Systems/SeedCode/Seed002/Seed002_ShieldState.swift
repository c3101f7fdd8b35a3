// Seed 002 (002_4f3f8b8463fad8b4.txt), lines 216-221: Shield State Persistence.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

// ---- BEGIN seed 002 lines 216-221 ----
struct ShieldState {
    var isActive: Bool
    var blockedApplications: Set<ApplicationToken>
    var pendingWorkoutNotification: String?
    var emergencyUnlocksRemaining: Int
}
// ---- END seed 002 lines 216-221 ----
