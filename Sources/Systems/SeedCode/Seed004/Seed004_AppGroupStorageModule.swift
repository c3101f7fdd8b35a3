// Seed 004 (004_6cf68614996b47bd.txt), lines 186-244: 4.1 Native Module Interface (AppGroupStorage).
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

// ---- BEGIN seed 004 lines 186-244 ----
// ios/AppGroupStorage.swift
// EDIT: removed seed line 187 (platform): import Foundation
import SeedReact // EDIT line 188 (platform)

// EDIT: removed seed line 190 (platform): @objc(AppGroupStorage)
class AppGroupStorage: NSObject {
    
    private let appGroup = "group.com.exit.app"
    private var defaults: UserDefaults? {
        return UserDefaults(suiteName: appGroup)
    }
    
// EDIT: removed seed line 198 (platform): @objc
    func setInt(_ key: String, value: NSNumber) {
        defaults?.set(value.intValue, forKey: key)
        defaults?.synchronize()
    }
    
// EDIT: removed seed line 204 (platform): @objc
    func getInt(_ key: String, 
                resolver: @escaping RCTPromiseResolveBlock,
                rejecter: @escaping RCTPromiseRejectBlock) {
        let value = defaults?.integer(forKey: key) ?? 0
        resolver(NSNumber(value: value))
    }
    
// EDIT: removed seed line 212 (platform): @objc
    func setBool(_ key: String, value: Bool) {
        defaults?.set(value, forKey: key)
        defaults?.synchronize()
    }
    
// EDIT: removed seed line 218 (platform): @objc
    func getBool(_ key: String,
                 resolver: @escaping RCTPromiseResolveBlock,
                 rejecter: @escaping RCTPromiseRejectBlock) {
        let value = defaults?.bool(forKey: key)
        resolver(value)
    }
    
// EDIT: removed seed line 226 (platform): @objc
    func setString(_ key: String, value: String) {
        defaults?.set(value, forKey: key)
        defaults?.synchronize()
    }
    
// EDIT: removed seed line 232 (platform): @objc
    func getString(_ key: String,
                   resolver: @escaping RCTPromiseResolveBlock,
                   rejecter: @escaping RCTPromiseRejectBlock) {
        let value = defaults?.string(forKey: key) ?? ""
        resolver(value)
    }
    
// EDIT: removed seed line 240 (platform): @objc
    static func requiresMainQueueSetup() -> Bool {
        return false
    }
}
// ---- END seed 004 lines 186-244 ----
