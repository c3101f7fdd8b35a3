// Seed 000 (000_9dddb9b948cad8a0.txt), lines 295-313: MethodChannel 3. presentAppPicker.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

// ---- BEGIN seed 000 lines 295-313 ----
import FamilyControls
import SeedSwiftUI // EDIT line 296 (platform)

func presentAppPicker(result: @escaping FlutterResult) {
    // Present picker modally from root view controller
    let pickerView = FamilyActivityPickerView { selection in
        // Save selection to App Group
        if let data = try? NSKeyedArchiver.archivedData(withRootObject: selection, requiringSecureCoding: true) {
            AppGroupStorage.shared.saveBlockedAppsTokens(data)
        }
        result(["selected": true, "count": selection.applicationTokens.count])
    }

    // Present using UIHostingController
    let hostingController = UIHostingController(rootView: pickerView)
    if let rootVC = UIApplication.shared.windows.first?.rootViewController {
        rootVC.present(hostingController, animated: true)
    }
}
// ---- END seed 000 lines 295-313 ----
