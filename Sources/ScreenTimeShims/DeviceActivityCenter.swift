import AppGroup
import Foundation

/// `DeviceActivitySchedule` reduced to what the emulated OS needs: absolute device-time bounds.
public struct DeviceActivitySchedule: Codable, Equatable, Sendable {
    public var intervalStart: Date
    public var intervalEnd: Date
    public var repeats: Bool

    public init(intervalStart: Date, intervalEnd: Date, repeats: Bool) {
        self.intervalStart = intervalStart
        self.intervalEnd = intervalEnd
        self.repeats = repeats
    }
}

/// One registration as the OS stores it: `system/deviceactivity/<activity>.json`.
public struct DeviceActivityRegistration: Codable, Equatable, Sendable {
    public var activity: String
    public var schedule: DeviceActivitySchedule
    public var registeredBy: Int32
}

/// `DeviceActivityCenter().startMonitoring(_:during:)` / `stopMonitoring(_:)`, with iOS's checks:
/// 15 min ≤ interval ≤ 1 week, at most 20 monitored activities.
public final class DeviceActivityCenter: @unchecked Sendable {
    public enum MonitoringError: Error, Equatable, CustomStringConvertible {
        case intervalTooShort, intervalTooLong, excessiveActivities, invalidActivityName(String)
        public var description: String {
            switch self {
            case .intervalTooShort: return "intervalTooShort (schedules must last at least 15 minutes)"
            case .intervalTooLong: return "intervalTooLong (schedules may last at most one week)"
            case .excessiveActivities: return "excessiveActivities (at most 20 monitored activities)"
            case .invalidActivityName(let n): return "invalid activity name \(String(reflecting: n))"
            }
        }
    }

    public static let minimumIntervalSeconds: Double = 15 * 60
    public static let maximumIntervalSeconds: Double = 7 * 24 * 3600
    public static let maximumActivities = 20

    let directory: SafeDirectory
    let center: DarwinNotificationCenter

    public init(deviceRoot: DeviceRoot, center: DarwinNotificationCenter) throws {
        self.directory = try deviceRoot.subdirectory(EmulatedOSPaths.deviceActivity)
        self.center = center
    }

    public func startMonitoring(_ activity: String, during schedule: DeviceActivitySchedule) throws {
        guard (try? SafeDirectory.validate(component: activity + ".json")) != nil, !activity.hasPrefix(".") else {
            throw MonitoringError.invalidActivityName(activity)
        }
        var length = schedule.intervalEnd.timeIntervalSince(schedule.intervalStart)
        if length < 0 { length += 24 * 3600 }  // DateComponents schedules wrap past midnight
        if length < Self.minimumIntervalSeconds { throw MonitoringError.intervalTooShort }
        if length > Self.maximumIntervalSeconds { throw MonitoringError.intervalTooLong }
        let existing = activities()
        if !existing.contains(activity) && existing.count >= Self.maximumActivities { throw MonitoringError.excessiveActivities }
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys]
        enc.dateEncodingStrategy = .secondsSince1970
        let reg = DeviceActivityRegistration(activity: activity, schedule: schedule, registeredBy: getpid())
        try directory.writeAtomically(activity + ".json", bytes: Array(try enc.encode(reg)), fsync: false)
        try center.post(EmulatedOSPaths.deviceActivityChanged)
    }

    public func stopMonitoring(_ activities: [String]) {
        for a in activities where (try? SafeDirectory.validate(component: a + ".json")) != nil { directory.remove(a + ".json") }
        try? center.post(EmulatedOSPaths.deviceActivityChanged)
    }

    public func activities() -> [String] {
        ((try? directory.entries(limit: 1000)) ?? []).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// The OS's registry (harness side).
    public static func registrations(deviceRoot: DeviceRoot) -> [DeviceActivityRegistration] {
        guard let dir = try? deviceRoot.subdirectory(EmulatedOSPaths.deviceActivity) else { return [] }
        let dec = JSONDecoder()
        dec.dateDecodingStrategy = .secondsSince1970
        var out: [DeviceActivityRegistration] = []
        for n in ((try? dir.entries(limit: 1000)) ?? []).sorted() where n.hasSuffix(".json") && !n.hasPrefix(".") {
            if let b = try? dir.readFile(n, limitBytes: 1 << 16), let r = try? dec.decode(DeviceActivityRegistration.self, from: Data(b)) {
                out.append(r)
            }
        }
        return out
    }
}
