import Foundation
import ScreenTimeModel

/// Between the public classes and the `system/notifications/` records (EMULATED-IOS.md §7.5).
enum RecordConversion {
    /// `userInfo` must be JSON-shaped to cross: strings, numbers, booleans, arrays, string-keyed
    /// dictionaries (Apple requires property-list types; dates and data are refused here).
    static func json(_ v: Any, _ path: String) throws -> JSONValue {
        switch v {
        case let s as String: return .string(s)
        case let b as Bool: return .bool(b)
        case let i as Int: return .number(Double(i))
        case let d as Double: return .number(d)
        case let f as Float: return .number(Double(f))
        case let n as NSNumber: return .number(n.doubleValue)
        case is NSNull: return .null
        case let a as [Any]: return .array(try a.enumerated().map { try json($1, "\(path)[\($0)]") })
        case let d as [String: Any]:
            var o: [String: JSONValue] = [:]
            for (k, x) in d { o[k] = try json(x, "\(path).\(k)") }
            return .object(o)
        case let d as [AnyHashable: Any]:
            var o: [String: JSONValue] = [:]
            for (k, x) in d {
                guard let ks = k.base as? String else { throw UNError(.notificationInvalidNoContent, "userInfo key at \(path) is not a string") }
                o[ks] = try json(x, "\(path).\(ks)")
            }
            return .object(o)
        default:
            throw UNError(.notificationInvalidNoContent, "userInfo\(path) is a \(type(of: v)); only strings, numbers, booleans, arrays and dictionaries cross to the OS")
        }
    }

    static func any(_ v: JSONValue) -> Any {
        switch v {
        case .string(let s): return s
        case .number(let d): return d == d.rounded() && abs(d) < 9e15 ? Int(d) as Any : d as Any
        case .bool(let b): return b
        case .null: return NSNull()
        case .array(let a): return a.map(any)
        case .object(let o): return o.mapValues(any)
        }
    }

    static func record(_ c: UNNotificationContent) throws -> NotificationContentRecord {
        var info: [String: JSONValue] = [:]
        for (k, v) in c.userInfo {
            guard let ks = k.base as? String else { throw UNError(.notificationInvalidNoContent, "userInfo key \(k) is not a string") }
            info[ks] = try json(v, ".\(ks)")
        }
        return NotificationContentRecord(
            title: c.title, subtitle: c.subtitle, body: c.body, sound: c.sound?.name, badge: c.badge?.intValue,
            categoryIdentifier: c.categoryIdentifier, threadIdentifier: c.threadIdentifier, userInfo: info,
            interruptionLevel: c.interruptionLevel.name)
    }

    static func content(_ r: NotificationContentRecord) -> UNNotificationContent {
        var f = UNNotificationContent.Fields()
        f.title = r.title
        f.subtitle = r.subtitle
        f.body = r.body
        f.sound = r.sound.map { UNNotificationSound(name: $0) }
        f.badge = r.badge.map { NSNumber(value: $0) }
        f.categoryIdentifier = r.categoryIdentifier
        f.threadIdentifier = r.threadIdentifier
        var info: [AnyHashable: Any] = [:]
        for (k, v) in r.userInfo { info[k] = any(v) }
        f.userInfo = info
        f.interruptionLevel = UNNotificationInterruptionLevel(name: r.interruptionLevel)
        return UNNotificationContent(fields: f)
    }

    static func record(_ t: UNNotificationTrigger?) throws -> NotificationTriggerRecord? {
        guard let t else { return nil }
        let r: NotificationTriggerRecord
        switch t {
        case let i as UNTimeIntervalNotificationTrigger:
            r = NotificationTriggerRecord(kind: .timeInterval, repeats: i.repeats, timeInterval: i.timeInterval)
        case let c as UNCalendarNotificationTrigger:
            do {
                r = NotificationTriggerRecord(kind: .calendar, repeats: c.repeats, dateMatching: try ScheduleComponents(c.dateComponents))
            } catch {
                throw UNError(.notificationInvalidNoDate, "\(error)")
            }
        default:
            throw UNError(.notificationInvalidNoDate, "\(type(of: t)) triggers are not modelled (time-interval and calendar triggers are)")
        }
        if let p = NotificationTriggerRules.problem(r) { throw UNError(.notificationInvalidNoDate, p) }
        return r
    }

    static func trigger(_ r: NotificationTriggerRecord?) -> UNNotificationTrigger? {
        guard let r else { return nil }
        switch r.kind {
        case .timeInterval: return UNTimeIntervalNotificationTrigger(timeInterval: r.timeInterval ?? 0, repeats: r.repeats)
        case .calendar: return UNCalendarNotificationTrigger(dateMatching: r.dateMatching?.dateComponents ?? DateComponents(), repeats: r.repeats)
        }
    }

    static func request(_ r: NotificationRequestRecord) -> UNNotificationRequest {
        UNNotificationRequest(identifier: r.identifier, content: content(r.content), trigger: trigger(r.trigger))
    }

    static func notification(_ r: DeliveredNotificationRecord) -> UNNotification {
        UNNotification(date: r.date, request: request(r.request))
    }

    static func record(_ c: UNNotificationCategory) -> NotificationCategoryRecord {
        NotificationCategoryRecord(
            identifier: c.identifier,
            actions: c.actions.map {
                NotificationActionRecord(
                    identifier: $0.identifier, title: $0.title, options: $0.options.names,
                    textInputButtonTitle: ($0 as? UNTextInputNotificationAction)?.textInputButtonTitle)
            },
            intentIdentifiers: c.intentIdentifiers, options: c.options.names)
    }

    static func category(_ r: NotificationCategoryRecord) -> UNNotificationCategory {
        UNNotificationCategory(
            identifier: r.identifier,
            actions: r.actions.map {
                if let t = $0.textInputButtonTitle {
                    return UNTextInputNotificationAction(
                        identifier: $0.identifier, title: $0.title, options: UNNotificationActionOptions(names: $0.options), textInputButtonTitle: t,
                        textInputPlaceholder: "")
                }
                return UNNotificationAction(identifier: $0.identifier, title: $0.title, options: UNNotificationActionOptions(names: $0.options))
            },
            intentIdentifiers: r.intentIdentifiers, options: UNNotificationCategoryOptions(names: r.options))
    }
}
