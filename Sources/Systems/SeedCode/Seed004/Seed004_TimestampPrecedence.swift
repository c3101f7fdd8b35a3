// Seed 004 (004_6cf68614996b47bd.txt), lines 531-550: 6.3 Race Conditions (timestamp-based precedence).
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: statements with a `return value`; `defaults` and `clarityScore` are not shown.
func seed004StampedClarity(defaults: UserDefaults?, clarityScore: Int) -> Int? {
// ---- BEGIN seed 004 lines 531-550 ----
// Write with timestamp
let data: [String: Any] = [
    "value": clarityScore,
    "timestamp": Date().timeIntervalSince1970
]
let json = try? JSONSerialization.data(withJSONObject: data)
defaults?.set(json, forKey: "clarity_score_stamped")

// Read with validation
if let json = defaults?.data(forKey: "clarity_score_stamped"),
   let data = try? JSONSerialization.jsonObject(with: json) as? [String: Any],
   let value = data["value"] as? Int,
   let timestamp = data["timestamp"] as? Double {
    
    // Check if data is fresh (< 1 hour old)
    let now = Date().timeIntervalSince1970
    if now - timestamp < 3600 {
        return value
    }
}
// ---- END seed 004 lines 531-550 ----
return nil
}
