#if canImport(Glibc)
import Glibc
#endif

/// CPU time (user + system, seconds) as `getrusage` counts it, for the benchmarks that measure it.
package enum CPUTime {
    /// This process, every thread.
    package static var ownSeconds: Double { seconds(RUSAGE_SELF) }
    /// Every child this process has waited for (a child still running counts once it is reaped).
    package static var childrenSeconds: Double { seconds(RUSAGE_CHILDREN) }

    static func seconds(_ who: __rusage_who) -> Double {
        var u = rusage()
        guard getrusage(__rusage_who_t(who.rawValue), &u) == 0 else { return 0 }
        return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
    }
}
