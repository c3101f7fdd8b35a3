// Seed 000 (000_9dddb9b948cad8a0.txt), lines 460-469: MethodChannel 6. checkSessionStatus.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

// ---- BEGIN seed 000 lines 460-469 ----
func checkSessionStatus(sessionId: String, result: FlutterResult) {
    let status = AppGroupStorage.shared.checkSessionFailed()

    result([
        "failed": status.failed,
        "reason": status.reason as Any,
        "timestamp": status.timestamp?.timeIntervalSince1970 ?? 0,
        "appBundleId": status.appBundleId as Any
    ])
}
// ---- END seed 000 lines 460-469 ----
