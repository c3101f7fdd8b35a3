// Seed 002 (002_4f3f8b8463fad8b4.txt), lines 198-206: Flutter Navigation Bridge.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: statements of the app delegate; `channel` is not shown in the seed.
func seed002FlutterBridge(channel: FlutterMethodChannel) {
// ---- BEGIN seed 002 lines 198-206 ----
// iOS → Flutter
channel.invokeMethod("navigateToWorkout", arguments: ["source": "notification"])

// Flutter → iOS (confirmation)
channel.setMethodCallHandler { (call, result) in
    if call.method == "workoutNavigationComplete" {
        // Handle successful navigation
    }
}
// ---- END seed 002 lines 198-206 ----
}
