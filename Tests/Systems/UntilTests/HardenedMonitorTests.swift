import AppGroup
import Foundation
import SystemKit
import Testing
import Until

/// The hardened monitor extension by events and effects (README H1).
@Suite(.timeLimit(.minutes(1))) struct HardenedMonitorTests {
    let now = Date(timeIntervalSince1970: 1_772_504_347)

    @Test func aReportGetsItsOwnKeyWrittenWholeThenThePost() throws {
        let effects = HardenedMonitor().handle(.eventDidReachThreshold(event: "appOpened", activity: "untilMonitoring", now: now, store: [:]))
        let key = "appOpened.1772504347000.untilMonitoring.appOpened"
        #expect(effects.count == 3)
        guard case .setDefaults(let writes, let atomic) = effects[0], case .data(let data)? = writes.first?.value else {
            Issue.record("first effect is not one data write: \(effects)")
            return
        }
        #expect(atomic && writes.count == 1 && writes[0].key == key)
        let record = try #require(AppOpenedEvent(jsonData: data))
        #expect(record == AppOpenedEvent(eventName: "appOpened", activityName: "untilMonitoring", timestampMillis: 1_772_504_347_000))
        #expect(effects[1] == .trace("app_opened_recorded", ["key": key, "timestamp": "1772504347000"]))
        #expect(effects[2] == .postNotification(UntilKeys.appOpenedNotification))
    }

    @Test func aDuplicateCallWritesTheSameKeyAndBytes() {
        let first = HardenedMonitor().handle(.eventDidReachThreshold(event: "appOpened", activity: "untilMonitoring", now: now, store: [:]))
        guard case .setDefaults(let w, _) = first[0] else { return }
        let store: [String: PropertyListValue] = [w[0].key: w[0].value!]
        let again = HardenedMonitor().handle(.eventDidReachThreshold(event: "appOpened", activity: "untilMonitoring", now: now, store: store))
        #expect(again == first, "one report, however often iOS calls for it")
    }

    @Test func aLaterReportNeverTouchesAnEarlierOne() {
        let earlier = HardenedMonitor.key(timestampMillis: 1_000, activity: "untilMonitoring", event: "appOpened")
        let effects = HardenedMonitor().handle(.eventDidReachThreshold(
            event: "appOpened", activity: "untilMonitoring", now: now, store: [earlier: .data(Data("{}".utf8))]))
        guard case .setDefaults(let writes, _) = effects[0] else { return }
        #expect(!writes.contains { $0.key == earlier }, "the seed's single slot is what loses reports")
    }

    @Test func theWaitingReportsAreBoundedOldestFirst() {
        var store: [String: PropertyListValue] = [:]
        for i in 0..<HardenedMonitor.maxPendingReports {
            store[HardenedMonitor.key(timestampMillis: Int64(10_000 + i), activity: "a", event: "e")] = .data(Data())
        }
        let effects = HardenedMonitor().handle(.eventDidReachThreshold(event: "e", activity: "a", now: now, store: store))
        guard case .setDefaults(let writes, true) = effects[0] else { return }
        #expect(writes.count == 2)
        #expect(writes[1] == .remove(HardenedMonitor.key(timestampMillis: 10_000, activity: "a", event: "e")))
    }

    @Test func intervalCallbacksDoNothing() {
        #expect(HardenedMonitor().handle(.intervalDidStart(activity: "untilMonitoring")).isEmpty)
        #expect(HardenedMonitor().handle(.intervalDidEnd(activity: "untilMonitoring")).isEmpty)
    }
}
