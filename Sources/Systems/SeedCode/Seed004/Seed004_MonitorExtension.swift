// Seed 004 (004_6cf68614996b47bd.txt), lines 429-477: 5.3 DeviceActivityMonitor Implementation.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

// ---- BEGIN seed 004 lines 429-477 ----
// DeviceActivityMonitorExtension/ExitMonitor.swift
import DeviceActivity
import ManagedSettings

class ExitDeviceActivityMonitor: DeviceActivityMonitor {
    
    let appGroup = "group.com.exit.app"
    
    override func intervalDidStart(for activity: DeviceActivityName) {
        super.intervalDidStart(for: activity)
        
        // Log activity start (optional)
        let defaults = UserDefaults(suiteName: appGroup)
        let now = Date().timeIntervalSince1970
        defaults?.set(now, forKey: "last_activity_start")
        defaults?.synchronize()
    }
    
    override func intervalDidEnd(for activity: DeviceActivityName) {
        super.intervalDidEnd(for: activity)
        
        // Calculate screen time for this interval
        let defaults = UserDefaults(suiteName: appGroup)
        let start = defaults?.double(forKey: "last_activity_start") ?? 0
        let now = Date().timeIntervalSince1970
        let duration = Int((now - start) / 60) // Convert to minutes
        
        // Add to daily total
        let currentTotal = defaults?.integer(forKey: "screen_time_today") ?? 0
        defaults?.set(currentTotal + duration, forKey: "screen_time_today")
        defaults?.synchronize()
    }
    
    override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name,
                                        activity: DeviceActivityName) {
        super.eventDidReachThreshold(event, activity: activity)
        
        // Threshold reached (e.g., 30 min on TikTok)
        let defaults = UserDefaults(suiteName: appGroup)
        
        // Increment entropy
        let currentEntropy = defaults?.integer(forKey: "entropy_accumulated") ?? 0
        defaults?.set(currentEntropy + 15, forKey: "entropy_accumulated")
        
        // Trigger shield for next app open
        defaults?.set(true, forKey: "high_entropy_flag")
        defaults?.synchronize()
    }
}
// ---- END seed 004 lines 429-477 ----
