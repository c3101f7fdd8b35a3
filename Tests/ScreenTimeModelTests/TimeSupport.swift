import Foundation

/// Instants written as local wall times in a named zone, so tests read like the schedules they check.
struct Zone {
    let tz: TimeZone
    init(_ id: String) { tz = TimeZone(identifier: id)! }

    func at(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int = 0, _ s: Int = 0) -> Date {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = tz
        return cal.date(from: DateComponents(year: y, month: mo, day: d, hour: h, minute: mi, second: s))!
    }
}

let minute = 60.0
let hour = 3600.0
let day = 86_400.0
