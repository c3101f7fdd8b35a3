// Seed 004 (004_6cf68614996b47bd.txt), lines 367-424: 5.2 App Selection Interface.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

// ---- BEGIN seed 004 lines 367-424 ----
// ios/AppSelectionManager.swift
import FamilyControls
import SeedSwiftUI // EDIT line 369 (platform)

// EDIT: removed seed line 371 (platform): @objc(AppSelectionManager)
class AppSelectionManager: NSObject {
    
    private var presentingController: UIViewController?
    
// EDIT: removed seed line 376 (platform): @objc
    func presentAppSelection(_ resolve: @escaping RCTPromiseResolveBlock,
                            rejecter reject: @escaping RCTPromiseRejectBlock) {
        
        DispatchQueue.main.async {
            let selectionView = AppSelectionView { selectedApps in
                // Save selected apps to App Group
                self.saveSelectedApps(selectedApps)
                resolve(true)
            }
            
            let hostingController = UIHostingController(rootView: selectionView)
            
            if let rootVC = UIApplication.shared.windows.first?.rootViewController {
                rootVC.present(hostingController, animated: true)
            }
        }
    }
    
    private func saveSelectedApps(_ tokens: Set<ApplicationToken>) {
        let bundleIds = tokens.compactMap { Application(token: $0).bundleIdentifier } // EDIT line 396 (seed bug)
        let json = try? JSONEncoder().encode(bundleIds)
        
        let appGroup = UserDefaults(suiteName: "group.com.exit.app")
        appGroup?.set(json, forKey: "monitored_apps")
        appGroup?.synchronize()
    }
}

struct AppSelectionView: View {
    @State private var selection = FamilyActivitySelection()
    let onComplete: (Set<ApplicationToken>) -> Void
    
    var body: some View {
        VStack {
            Text("Select Apps to Monitor")
                .font(.title)
            
            FamilyActivityPicker(selection: $selection)
            
            Button("Done") {
                if case let apps = selection.applicationTokens { // EDIT line 417 (seed bug)
                    onComplete(apps)
                }
            }
            .padding()
        }
    }
}
// ---- END seed 004 lines 367-424 ----
