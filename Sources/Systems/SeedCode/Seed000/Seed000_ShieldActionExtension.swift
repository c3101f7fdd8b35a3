// Seed 000 (000_9dddb9b948cad8a0.txt), lines 543-559: ShieldActionExtension (optional).
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

// ---- BEGIN seed 000 lines 543-559 ----
import ManagedSettings

class ShieldActionExtension: ShieldActionDelegate {
    override func handle(action: ShieldAction, for application: ApplicationToken, completionHandler: @escaping (ShieldActionResponse) -> Void) {

        // User tapped on a shielded app
        // Log violation with app token (can be mapped to bundle ID)

        AppGroupStorage.shared.markSessionFailed(
            reason: "app_opened",
            appBundleId: Application(token: application).bundleIdentifier // if available // EDIT line 553 (seed bug)
        )

        // Return .none to keep shield active (user cannot bypass)
        completionHandler(.none)
    }
}
// ---- END seed 000 lines 543-559 ----
