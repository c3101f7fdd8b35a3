import AppGroup
import Foundation
import ScreenTimeModel
import OSFiles

/// Apple's `DeviceActivityCenter`: which activities the app and its extensions monitor. The
/// registrations are the OS's (`system/deviceactivity/<activity>.json`, EMULATED-IOS.md §7.3); every
/// instance is the same registry.
public struct DeviceActivityCenter: Sendable {
    /// Apple's `DeviceActivityCenter.MonitoringError`.
    public enum MonitoringError: Error, Equatable, Sendable, LocalizedError, CustomStringConvertible {
        /// "The calling process is monitoring too many activities." (more than 20)
        case excessiveActivities
        /// "The activity's schedule has an interval that is too long." (more than one week)
        case intervalTooLong
        /// "The activity's schedule has an interval that is too short." (less than 15 minutes)
        case intervalTooShort
        /// "The schedule's date range is invalid."
        case invalidDateComponents
        /// The app is not authorized (FamilyControls).
        case unauthorized

        init(_ e: ScheduleError) {
            switch e {
            case .intervalTooShort: self = .intervalTooShort
            case .intervalTooLong: self = .intervalTooLong
            case .invalidDateComponents: self = .invalidDateComponents
            case .excessiveActivities: self = .excessiveActivities
            }
        }

        public var errorDescription: String? { description }

        /// The case's name, as the OS records it.
        public var caseName: String {
            switch self {
            case .excessiveActivities: "excessiveActivities"
            case .intervalTooLong: "intervalTooLong"
            case .intervalTooShort: "intervalTooShort"
            case .invalidDateComponents: "invalidDateComponents"
            case .unauthorized: "unauthorized"
            }
        }

        public var recoverySuggestion: String? {
            switch self {
            case .intervalTooShort:
                "The minimum interval length for monitoring device activity is fifteen minutes. Consider using the warningTime property of the schedule instead."
            case .intervalTooLong: "The maximum interval length for monitoring device activity is one week."
            case .excessiveActivities: "Stop monitoring an activity first: an app and its extensions can monitor at most twenty activities."
            case .invalidDateComponents: "Use hour, minute, second (and optionally weekday, day, month, year) components that match a future date."
            case .unauthorized: "Request FamilyControls authorization first (AuthorizationCenter.shared.requestAuthorization(for:))."
            }
        }

        public var description: String {
            switch self {
            case .excessiveActivities: "DeviceActivityCenter.MonitoringError.excessiveActivities (at most 20 monitored activities)"
            case .intervalTooLong: "DeviceActivityCenter.MonitoringError.intervalTooLong (an interval may last at most one week)"
            case .intervalTooShort: "DeviceActivityCenter.MonitoringError.intervalTooShort (an interval must last at least 15 minutes)"
            case .invalidDateComponents: "DeviceActivityCenter.MonitoringError.invalidDateComponents (the schedule's date components match no interval)"
            case .unauthorized: "DeviceActivityCenter.MonitoringError.unauthorized (FamilyControls authorization is not approved)"
            }
        }
    }

    private let device: Result<EmulatedDevice, OSFileError>

    public init() {
        device = Result(catching: { () throws(OSFileError) -> EmulatedDevice in try EmulatedDevice.current() })
    }

    @_spi(ScreenTimeHarness) public init(device: EmulatedDevice) { self.device = .success(device) }

    /// Apple's `startMonitoring(_:during:events:)`. Validates with the shared rules (the
    /// schedule, then the 20-activity limit) and writes nothing when they fail; otherwise replaces
    /// the activity's registration and posts `system.deviceactivity.changed`. Errors beyond
    /// Apple's (`OSFileError`) mean the device itself could not be written.
    public func startMonitoring(
        _ activity: DeviceActivityName, during schedule: DeviceActivitySchedule, events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:]
    ) throws {
        // The call's crash point (CRASH-POINTS.md §11), for a seed's own code as for the effect.
        try CrashPoints.pass("monitoring.start:" + activity.rawValue)
        do {
            try startMonitoringChecked(activity, during: schedule, events: events)
        } catch let e as MonitoringError {
            fileRefusal(activity.rawValue, e)
            throw e
        }
    }

    /// On iOS the OS refuses, so it knows; here the framework files the refusal for the OS
    /// (`system/deviceactivity-refused/`, EMULATED-IOS.md §7.3), bounded by the directory limit.
    private func fileRefusal(_ activity: String, _ e: MonitoringError) {
        guard let device = try? device.get(), let area = try? device.area(OSPaths.deviceActivityRefusals),
            ((try? area.recordNames().count) ?? 0) < OSPaths.maxRecordsPerDirectory
        else { return }
        let name = "\(Int64(device.now().timeIntervalSince1970 * 1000))-\(UUID().uuidString.prefix(8)).json"
        let record = MonitoringRefusalRecord(
            activity: activity, error: e.caseName, detail: e.description, refusedAt: device.now(),
            refusedBy: WriterRecord(pid: device.writer.pid, process: device.writer.process))
        do { try area.write(record, name, post: OSPaths.deviceActivityChanged) } catch {
            EmulatedDevice.report("DeviceActivityCenter.startMonitoring (filing the refusal)", error)
        }
    }

    private func startMonitoringChecked(
        _ activity: DeviceActivityName, during schedule: DeviceActivitySchedule, events: [DeviceActivityEvent.Name: DeviceActivityEvent]
    ) throws {
        let device = try device.get()
        guard let file = OSFileName.encode(activity.rawValue) else { throw OSFileError.invalidName(kind: "DeviceActivityName", name: activity.rawValue) }
        if try Self.authorizationRefused(device) { throw MonitoringError.unauthorized }
        let now = device.now()
        let timeZone = device.timeZone
        let spec: ScheduleSpec
        let first: DateInterval
        var eventRecords: [String: ActivityEventRecord] = [:]
        do {
            spec = try schedule.spec()
            first = try ScheduleRules.validate(spec, at: now, timeZone: timeZone)
            for (name, event) in events { eventRecords[name.rawValue] = try event.record() }
        } catch {
            throw MonitoringError(error)
        }
        let area = try device.area(OSPaths.deviceActivity)
        let record = ActivityRegistrationRecord(
            activity: activity.rawValue, schedule: spec, events: eventRecords, registeredAt: now, timeZone: timeZone.identifier,
            registeredBy: WriterRecord(pid: device.writer.pid, process: device.writer.process), firstInterval: IntervalRecord(first))
        let admitted = try area.withLock { () throws(OSFileError) -> Bool in
            // Counted under the lock: two processes cannot both register the 20th activity.
            let monitored = Set(try area.recordNames().compactMap(OSFileName.decode))
            do { try ActivityLimit.check(monitored: monitored, adding: activity.rawValue) } catch {
                return false
            }
            try area.write(record, file, post: OSPaths.deviceActivityChanged)
            return true
        }
        if !admitted { throw MonitoringError.excessiveActivities }
    }

    /// Apple's `stopMonitoring(_:)`: no names = every activity. Deletes the registrations and
    /// posts `system.deviceactivity.changed`; the OS ends an ongoing interval (`intervalDidEnd`).
    public func stopMonitoring(_ activities: [DeviceActivityName] = []) {
        do { try stopMonitoringThrowing(activities) } catch {
            EmulatedDevice.report("DeviceActivityCenter.stopMonitoring", error)
        }
    }

    /// `stopMonitoring(_:)` with the error (stand-ins trace it).
    @_spi(ScreenTimeHarness) public func stopMonitoringThrowing(_ activities: [DeviceActivityName]) throws {
        try CrashPoints.pass("monitoring.stop:" + activities.map(\.rawValue).joined(separator: ","))
        let area = try device.get().area(OSPaths.deviceActivity)
        let files = activities.isEmpty ? try area.recordNames() : activities.compactMap { OSFileName.encode($0.rawValue) }
        for f in files { area.directory.remove(f) }
        try area.post(OSPaths.deviceActivityChanged)
    }

    /// Apple's `activities`: the activities monitored now.
    public var activities: [DeviceActivityName] {
        do {
            return try device.get().area(OSPaths.deviceActivity).recordNames().compactMap(OSFileName.decode).map { DeviceActivityName($0) }
        } catch {
            EmulatedDevice.report("DeviceActivityCenter.activities", error)
            return []
        }
    }

    /// Apple's `schedule(for:)`.
    public func schedule(for activity: DeviceActivityName) -> DeviceActivitySchedule? {
        registration(activity).map { DeviceActivitySchedule($0.schedule) }
    }

    /// Apple's `events(for:)`.
    public func events(for activity: DeviceActivityName) -> [DeviceActivityEvent.Name: DeviceActivityEvent] {
        guard let r = registration(activity) else { return [:] }
        var out: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:]
        for (k, v) in r.events { out[DeviceActivityEvent.Name(k)] = DeviceActivityEvent(v) }
        return out
    }

    private func registration(_ activity: DeviceActivityName) -> ActivityRegistrationRecord? {
        do {
            guard let file = OSFileName.encode(activity.rawValue) else { return nil }
            return try device.get().area(OSPaths.deviceActivity).read(ActivityRegistrationRecord.self, file)
        } catch {
            EmulatedDevice.report("DeviceActivityCenter registration \(activity.rawValue)", error)
            return nil
        }
    }

    /// FamilyControls authorization is the OS's: once it models authorization (the status file
    /// exists), anything but `approved` refuses monitoring. Without the file the harness does not
    /// model authorization and monitoring is allowed (EMULATED-IOS.md §7.4).
    static func authorizationRefused(_ device: EmulatedDevice) throws(OSFileError) -> Bool {
        guard let status = try device.area(OSPaths.authorization).read(AuthorizationStatusRecord.self, OSPaths.familyControlsStatus) else {
            return false
        }
        return status.status != "approved"
    }
}
