// Seed 000 (000_9dddb9b948cad8a0.txt), lines 258-272: MethodChannel 2. getAuthorizationStatus.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

// ---- BEGIN seed 000 lines 258-272 ----
func getAuthorizationStatus(result: FlutterResult) {
    let status = AuthorizationCenter.shared.authorizationStatus
    let statusString: String
    switch status {
    case .approved:
        statusString = "authorized"
    case .denied:
        statusString = "denied"
    case .notDetermined:
        statusString = "notDetermined"
    @unknown default:
        statusString = "unknown"
    }
    result(["status": statusString])
}
// ---- END seed 000 lines 258-272 ----
