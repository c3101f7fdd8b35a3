import Foundation
@_spi(ScreenTimeHarness) import ManagedSettings
import ScreenTimeModel

/// Apple's `DeviceActivityEvent`: the apps, categories and sites whose cumulative frontmost use
/// within an interval counts toward `threshold`; the OS calls `eventDidReachThreshold` once when
/// it is reached.
public struct DeviceActivityEvent: Sendable, Equatable {
    /// Apple's `DeviceActivityEvent.Name`.
    public struct Name: RawRepresentable, Hashable, Codable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
    }

    public let applications: Set<ApplicationToken>
    public let categories: Set<ActivityCategoryToken>
    public let webDomains: Set<WebDomainToken>
    public let threshold: DateComponents
    /// iOS 17.4: use earlier in the interval, before monitoring began, counts too.
    public let includesPastActivity: Bool

    public init(
        applications: Set<ApplicationToken> = [], categories: Set<ActivityCategoryToken> = [], webDomains: Set<WebDomainToken> = [],
        threshold: DateComponents
    ) {
        self.init(applications: applications, categories: categories, webDomains: webDomains, threshold: threshold, includesPastActivity: false)
    }

    public init(
        applications: Set<ApplicationToken> = [], categories: Set<ActivityCategoryToken> = [], webDomains: Set<WebDomainToken> = [],
        threshold: DateComponents, includesPastActivity: Bool
    ) {
        self.applications = applications
        self.categories = categories
        self.webDomains = webDomains
        self.threshold = threshold
        self.includesPastActivity = includesPastActivity
    }

    func record() throws(ScheduleError) -> ActivityEventRecord {
        let t: ScheduleComponents
        do {
            t = try ScheduleComponents(threshold)
            _ = try t.durationSeconds()
        } catch {
            throw .invalidDateComponents("threshold: \(error)")
        }
        return ActivityEventRecord(
            applications: applications.map(\.opaqueValue).sorted(), categories: categories.map(\.opaqueValue).sorted(),
            webDomains: webDomains.map(\.opaqueValue).sorted(), threshold: t, includesPastActivity: includesPastActivity)
    }

    init(_ r: ActivityEventRecord) {
        self.init(
            applications: Set(r.applications.map(ApplicationToken.init(opaque:))), categories: Set(r.categories.map(ActivityCategoryToken.init(opaque:))),
            webDomains: Set(r.webDomains.map(WebDomainToken.init(opaque:))), threshold: r.threshold.dateComponents,
            includesPastActivity: r.includesPastActivity)
    }
}
