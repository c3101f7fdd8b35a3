// Seed 004 (004_6cf68614996b47bd.txt), lines 335-362: 5.1 FamilyControls Authorization.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

// ---- BEGIN seed 004 lines 335-362 ----
// ios/ScreenTimeManager.swift
import FamilyControls
import ManagedSettings
import DeviceActivity

// EDIT: removed seed line 340 (platform): @objc(ScreenTimeManager)
class ScreenTimeManager: NSObject {
    
// EDIT: removed seed line 343 (platform): @objc
    func requestAuthorization(_ resolve: @escaping RCTPromiseResolveBlock,
                             rejecter reject: @escaping RCTPromiseRejectBlock) {
        Task {
            do {
                try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
                resolve(true)
            } catch {
                reject("AUTH_ERROR", error.localizedDescription, error)
            }
        }
    }
    
// EDIT: removed seed line 356 (platform): @objc
    func isAuthorized(_ resolve: @escaping RCTPromiseResolveBlock,
                     rejecter reject: @escaping RCTPromiseRejectBlock) {
        let status = AuthorizationCenter.shared.authorizationStatus
        resolve(status == .approved)
    }
}
// ---- END seed 004 lines 335-362 ----
