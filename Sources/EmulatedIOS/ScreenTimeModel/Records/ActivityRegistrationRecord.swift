import Foundation

/// A `DeviceActivityEvent` as registered: the tokens whose cumulative frontmost use within an
/// interval counts, and the threshold (a duration as date components).
public struct ActivityEventRecord: Codable, Hashable, Sendable {
    public var applications: [String]
    public var categories: [String]
    public var webDomains: [String]
    public var threshold: ScheduleComponents
    /// iOS 17.4's `includesPastActivity`: use earlier in the interval, before registration, counts.
    public var includesPastActivity: Bool

    public init(applications: [String] = [], categories: [String] = [], webDomains: [String] = [], threshold: ScheduleComponents, includesPastActivity: Bool = false) {
        self.applications = applications
        self.categories = categories
        self.webDomains = webDomains
        self.threshold = threshold
        self.includesPastActivity = includesPastActivity
    }

    enum CodingKeys: String, CodingKey { case applications, categories, webDomains, threshold, includesPastActivity }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        applications = try c.decodeIfPresent([String].self, forKey: .applications) ?? []
        categories = try c.decodeIfPresent([String].self, forKey: .categories) ?? []
        webDomains = try c.decodeIfPresent([String].self, forKey: .webDomains) ?? []
        threshold = try c.decode(ScheduleComponents.self, forKey: .threshold)
        includesPastActivity = try c.decodeIfPresent(Bool.self, forKey: .includesPastActivity) ?? false
    }
}

/// One monitored activity: `system/deviceactivity/<activity>.json`, written by
/// `DeviceActivityCenter.startMonitoring` after the rules passed (temp + rename, then a post of
/// `system.deviceactivity.changed`); deleted by `stopMonitoring`.
public struct ActivityRegistrationRecord: Codable, Hashable, Sendable {
    public static let currentVersion = 1
    public var version: Int
    public var activity: String
    public var schedule: ScheduleSpec
    /// Keyed by `DeviceActivityEvent.Name`.
    public var events: [String: ActivityEventRecord]
    /// Device time of `startMonitoring`.
    public var registeredAt: Date
    /// The device's time zone at registration (IANA); the OS evaluates in the device's current zone.
    public var timeZone: String
    public var registeredBy: WriterRecord
    /// `nextInterval` at registration as the app computed it (informational; the OS recomputes).
    public var firstInterval: IntervalRecord

    public init(
        activity: String, schedule: ScheduleSpec, events: [String: ActivityEventRecord], registeredAt: Date, timeZone: String,
        registeredBy: WriterRecord, firstInterval: IntervalRecord
    ) {
        self.version = Self.currentVersion
        self.activity = activity
        self.schedule = schedule
        self.events = events
        self.registeredAt = registeredAt
        self.timeZone = timeZone
        self.registeredBy = registeredBy
        self.firstInterval = firstInterval
    }
}

/// `[start, end)` in device unix seconds.
public struct IntervalRecord: Codable, Hashable, Sendable {
    public var start: Date
    public var end: Date

    public init(start: Date, end: Date) {
        self.start = start
        self.end = end
    }

    public init(_ i: DateInterval) { self.init(start: i.start, end: i.end) }

    public var dateInterval: DateInterval { DateInterval(start: start, end: max(start, end)) }
}
