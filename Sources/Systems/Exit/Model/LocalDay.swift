import Foundation

/// A local calendar day as `yyyy-MM-dd` (sorts as the days do): the unit of the seed's daily
/// counters (`last_intervention_count` "Completed today", `daily_reset_flag` "Midnight occurred").
public enum LocalDay {
    public static func of(_ unixSeconds: Double, in timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: unixSeconds))
        return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }
}
