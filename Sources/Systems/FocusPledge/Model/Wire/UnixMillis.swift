import Foundation

/// Every time the settlement server keeps is an integral count of milliseconds since 1970 (device time).
///
/// Why integers: the journal must replay into exactly the ledger that wrote it. `Date` stores seconds
/// since 2001 as a `Double`, and converting through "seconds since 1970" is not bit-exact both ways,
/// so a replayed `Date` could differ from the original by an ulp. Integral milliseconds round-trip
/// through JSON in any language; at 600x device time one device millisecond is ~1.7 µs of wall time,
/// far below anything the seeds can observe.
public enum UnixMillis {
    public static func from(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    public static func date(_ unixMillis: Int64) -> Date {
        Date(timeIntervalSince1970: Double(unixMillis) / 1000)
    }

    public static func seconds(_ unixMillis: Int64) -> Double {
        Double(unixMillis) / 1000
    }
}
