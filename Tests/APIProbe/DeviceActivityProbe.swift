// API probe: Apple's DeviceActivity as an app and its monitor extension call it
// (docs/FRAMEWORKS-API.md). Only members that compile against this package's DeviceActivity are
// here; the rest are in not-provided.txt.
import DeviceActivity
import ManagedSettings

/// `DeviceActivityName.init(_:)`
func probe_DeviceActivityName_init() {
    let name = DeviceActivityName("daily")
    _ = name
}

/// `DeviceActivityName.init(rawValue:)`
func probe_DeviceActivityName_initRawValue() {
    let name = DeviceActivityName(rawValue: "daily")
    _ = name
}

/// `DeviceActivityName.rawValue`
func probe_DeviceActivityName_rawValue(_ activity: DeviceActivityName) {
    let raw: String = activity.rawValue
    _ = raw
}

/// `DeviceActivityName` (extended with a static name, as Apple's sample code does)
extension DeviceActivityName {
    static let probeDaily = Self("daily")
}

/// `DeviceActivityName` (Hashable, Codable)
func probe_DeviceActivityName_Codable() throws {
    let names: Set<DeviceActivityName> = [DeviceActivityName("a")]
    let data = try JSONEncoder().encode(names)
    _ = try JSONDecoder().decode(Set<DeviceActivityName>.self, from: data)
}

/// `DeviceActivitySchedule.init(intervalStart:intervalEnd:repeats:warningTime:)`
func probe_DeviceActivitySchedule_init() {
    let schedule = DeviceActivitySchedule(
        intervalStart: DateComponents(hour: 0, minute: 0), intervalEnd: DateComponents(hour: 23, minute: 59), repeats: true,
        warningTime: DateComponents(minute: 5))
    _ = schedule
}

/// `DeviceActivitySchedule.init(intervalStart:intervalEnd:repeats:warningTime:)` (no warning time)
func probe_DeviceActivitySchedule_initNoWarning() {
    let schedule = DeviceActivitySchedule(intervalStart: DateComponents(hour: 9), intervalEnd: DateComponents(hour: 17), repeats: false)
    _ = schedule
}

/// `DeviceActivitySchedule.intervalStart`, `.intervalEnd`
func probe_DeviceActivitySchedule_interval(_ schedule: DeviceActivitySchedule) {
    let start: DateComponents = schedule.intervalStart
    let end: DateComponents = schedule.intervalEnd
    _ = (start.hour, end.minute)
}

/// `DeviceActivitySchedule.repeats`
func probe_DeviceActivitySchedule_repeats(_ schedule: DeviceActivitySchedule) {
    let repeats: Bool = schedule.repeats
    _ = repeats
}

/// `DeviceActivitySchedule.warningTime`
func probe_DeviceActivitySchedule_warningTime(_ schedule: DeviceActivitySchedule) {
    let warning: DateComponents? = schedule.warningTime
    _ = warning
}

/// `DeviceActivitySchedule.nextInterval`
func probe_DeviceActivitySchedule_nextInterval(_ schedule: DeviceActivitySchedule) {
    let interval: DateInterval? = schedule.nextInterval
    _ = interval?.end
}

/// `DeviceActivityEvent.init(applications:categories:webDomains:threshold:)`
func probe_DeviceActivityEvent_init(_ apps: Set<ApplicationToken>, _ categories: Set<ActivityCategoryToken>, _ sites: Set<WebDomainToken>) {
    let event = DeviceActivityEvent(applications: apps, categories: categories, webDomains: sites, threshold: DateComponents(minute: 30))
    _ = event
}

/// `DeviceActivityEvent.init(applications:categories:webDomains:threshold:includesPastActivity:)`
func probe_DeviceActivityEvent_initIncludesPastActivity(_ apps: Set<ApplicationToken>) {
    let event = DeviceActivityEvent(applications: apps, threshold: DateComponents(hour: 1), includesPastActivity: true)
    _ = event
}

/// `DeviceActivityEvent.applications`, `.categories`, `.webDomains`
func probe_DeviceActivityEvent_tokens(_ event: DeviceActivityEvent) {
    let apps: Set<ApplicationToken> = event.applications
    let categories: Set<ActivityCategoryToken> = event.categories
    let sites: Set<WebDomainToken> = event.webDomains
    _ = (apps, categories, sites)
}

/// `DeviceActivityEvent.threshold`
func probe_DeviceActivityEvent_threshold(_ event: DeviceActivityEvent) {
    let threshold: DateComponents = event.threshold
    _ = threshold.minute
}

/// `DeviceActivityEvent.includesPastActivity`
func probe_DeviceActivityEvent_includesPastActivity(_ event: DeviceActivityEvent) {
    let past: Bool = event.includesPastActivity
    _ = past
}

/// `DeviceActivityEvent.Name.init(_:)`, `.init(rawValue:)`, `.rawValue`
func probe_DeviceActivityEvent_Name() {
    let a = DeviceActivityEvent.Name("limit")
    let b = DeviceActivityEvent.Name(rawValue: "limit")
    _ = a == b && a.rawValue == "limit"
}

/// `DeviceActivityEvent.Name` (extended with a static name)
extension DeviceActivityEvent.Name {
    static let probeLimit = Self("limit")
}

/// `DeviceActivityCenter.init()`
func probe_DeviceActivityCenter_init() {
    let center = DeviceActivityCenter()
    _ = center
}

/// `DeviceActivityCenter.startMonitoring(_:during:events:)`
func probe_DeviceActivityCenter_startMonitoring(_ apps: Set<ApplicationToken>) throws {
    let schedule = DeviceActivitySchedule(intervalStart: DateComponents(hour: 0, minute: 0), intervalEnd: DateComponents(hour: 23, minute: 59), repeats: true)
    let events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [
        DeviceActivityEvent.Name("limit"): DeviceActivityEvent(applications: apps, threshold: DateComponents(minute: 15))
    ]
    try DeviceActivityCenter().startMonitoring(DeviceActivityName("daily"), during: schedule, events: events)
}

/// `DeviceActivityCenter.startMonitoring(_:during:events:)` (no events)
func probe_DeviceActivityCenter_startMonitoringNoEvents() {
    let schedule = DeviceActivitySchedule(intervalStart: DateComponents(hour: 22), intervalEnd: DateComponents(hour: 7), repeats: true)
    do {
        try DeviceActivityCenter().startMonitoring(.probeDaily, during: schedule)
    } catch {
        _ = error
    }
}

/// `DeviceActivityCenter.stopMonitoring(_:)`
func probe_DeviceActivityCenter_stopMonitoring() {
    DeviceActivityCenter().stopMonitoring([DeviceActivityName("daily")])
}

/// `DeviceActivityCenter.stopMonitoring(_:)` (no names: every activity)
func probe_DeviceActivityCenter_stopMonitoringAll() {
    DeviceActivityCenter().stopMonitoring()
}

/// `DeviceActivityCenter.activities`
func probe_DeviceActivityCenter_activities() {
    let names: [DeviceActivityName] = DeviceActivityCenter().activities
    _ = names
}

/// `DeviceActivityCenter.schedule(for:)`
func probe_DeviceActivityCenter_scheduleFor() {
    let schedule: DeviceActivitySchedule? = DeviceActivityCenter().schedule(for: DeviceActivityName("daily"))
    _ = schedule
}

/// `DeviceActivityCenter.events(for:)`
func probe_DeviceActivityCenter_eventsFor() {
    let events: [DeviceActivityEvent.Name: DeviceActivityEvent] = DeviceActivityCenter().events(for: DeviceActivityName("daily"))
    _ = events
}

/// `DeviceActivityCenter.MonitoringError` (its cases, caught from `startMonitoring`)
func probe_DeviceActivityCenter_MonitoringError(_ schedule: DeviceActivitySchedule) {
    do {
        try DeviceActivityCenter().startMonitoring(DeviceActivityName("x"), during: schedule)
    } catch let error as DeviceActivityCenter.MonitoringError {
        switch error {
        case .excessiveActivities, .intervalTooLong, .intervalTooShort, .invalidDateComponents, .unauthorized: break
        @unknown default: break
        }
    } catch {
        _ = error
    }
}

/// `DeviceActivityCenter.MonitoringError.intervalTooShort` (matched as a pattern)
func probe_DeviceActivityCenter_MonitoringError_pattern(_ schedule: DeviceActivitySchedule) {
    do {
        try DeviceActivityCenter().startMonitoring(DeviceActivityName("x"), during: schedule)
    } catch DeviceActivityCenter.MonitoringError.intervalTooShort {
        return
    } catch {
        _ = error.localizedDescription
    }
}

/// `DeviceActivityMonitor.init()`
func probe_DeviceActivityMonitor_init() {
    final class Monitor: DeviceActivityMonitor {
        override init() { super.init() }
    }
    _ = Monitor()
}

/// `DeviceActivityMonitor.intervalDidStart(for:)`
func probe_DeviceActivityMonitor_intervalDidStart() {
    final class Monitor: DeviceActivityMonitor {
        let store = ManagedSettingsStore()
        override func intervalDidStart(for activity: DeviceActivityName) {
            super.intervalDidStart(for: activity)
            store.shield.applicationCategories = .all()
        }
    }
    _ = Monitor()
}

/// `DeviceActivityMonitor.intervalDidEnd(for:)`
func probe_DeviceActivityMonitor_intervalDidEnd() {
    final class Monitor: DeviceActivityMonitor {
        override func intervalDidEnd(for activity: DeviceActivityName) {
            super.intervalDidEnd(for: activity)
            ManagedSettingsStore().clearAllSettings()
        }
    }
    _ = Monitor()
}

/// `DeviceActivityMonitor.eventDidReachThreshold(_:activity:)`
func probe_DeviceActivityMonitor_eventDidReachThreshold() {
    final class Monitor: DeviceActivityMonitor {
        override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
            super.eventDidReachThreshold(event, activity: activity)
        }
    }
    _ = Monitor()
}

/// `DeviceActivityMonitor.intervalWillStartWarning(for:)`
func probe_DeviceActivityMonitor_intervalWillStartWarning() {
    final class Monitor: DeviceActivityMonitor {
        override func intervalWillStartWarning(for activity: DeviceActivityName) {
            super.intervalWillStartWarning(for: activity)
        }
    }
    _ = Monitor()
}

/// `DeviceActivityMonitor.intervalWillEndWarning(for:)`
func probe_DeviceActivityMonitor_intervalWillEndWarning() {
    final class Monitor: DeviceActivityMonitor {
        override func intervalWillEndWarning(for activity: DeviceActivityName) {
            super.intervalWillEndWarning(for: activity)
        }
    }
    _ = Monitor()
}

/// `DeviceActivityMonitor.eventWillReachThresholdWarning(_:activity:)`
func probe_DeviceActivityMonitor_eventWillReachThresholdWarning() {
    final class Monitor: DeviceActivityMonitor {
        override func eventWillReachThresholdWarning(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
            super.eventWillReachThresholdWarning(event, activity: activity)
        }
    }
    _ = Monitor()
}
