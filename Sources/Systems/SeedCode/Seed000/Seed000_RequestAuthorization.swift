// Seed 000 (000_9dddb9b948cad8a0.txt), lines 225-236: MethodChannel 1. requestAuthorization.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

// ---- BEGIN seed 000 lines 225-236 ----
import FamilyControls

func requestAuthorization(result: @escaping FlutterResult) {
    Task {
        do {
            try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
            result(["authorized": true])
        } catch {
            result(["authorized": false, "error": error.localizedDescription])
        }
    }
}
// ---- END seed 000 lines 225-236 ----
