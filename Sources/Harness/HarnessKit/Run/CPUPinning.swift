import AppGroup
import CSystemShims
import Foundation

/// A stepped (virtual-time) run is a relay: the harness writes the clock and wakes a process, which
/// acts, wakes the next (a server, the harness) and waits. Spread over CPUs, every hand-off is a
/// cross-CPU wake-up (an inter-processor interrupt, dear in a VM) onto a cold cache; on one CPU it
/// is a context switch. So a stepped run keeps itself on one CPU — its thread, every thread it
/// starts and every process it spawns, which inherit the mask — and gives the thread its old mask
/// back at the end. Measured: a 24 h FocusPledge day in ~11 % less wall time and ~12 % less CPU
/// (benchmarks/README.md). A fixed-rate run is left alone: its processes do run at once.
///
/// `HARNESS_CPU` chooses: `auto` (the default: the CPU the run starts on, where the scheduler put
/// it; `harness explore`'s workers each their own, counting on from there), `off` (no pinning: two
/// harnesses sharing a machine), or a CPU number this process may use (the first of explore's).
public enum CPUPinning {
    public enum Choice: Hashable, Sendable {
        /// Not pinned.
        case off
        /// The CPU the run starts on (resolved at the start of each run).
        case auto
        case cpu(Int32)
    }

    public static let environmentVariable = "HARNESS_CPU"

    public struct ChoiceError: Error, CustomStringConvertible {
        public var description: String
    }

    /// `HARNESS_CPU` read: unset or empty is `auto`.
    public static func choice(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(ChoiceError) -> Choice {
        let raw = (environment[environmentVariable] ?? "").trimmingCharacters(in: .whitespaces)
        switch raw {
        case "", "auto": return .auto
        case "off": return .off
        default:
            let allowed = allowedCPUs()
            guard let n = Int32(raw), allowed.contains(n) else {
                throw ChoiceError(description: "\(environmentVariable)=\(Excerpt.quoted(raw)): use auto, off or a CPU this process may run on (\(allowed.map(String.init).joined(separator: ",")))")
            }
            return .cpu(n)
        }
    }

    /// The CPUs the calling thread may run on, in increasing order.
    public static func allowedCPUs() -> [Int32] {
        var mask = sth_cpu_mask()
        guard sth_get_thread_cpus(&mask) == 0 else { return [] }
        return list(mask)
    }

    static func list(_ mask: sth_cpu_mask) -> [Int32] {
        var mask = mask
        var out = [Int32](repeating: 0, count: 1024)
        let n = out.withUnsafeMutableBufferPointer { sth_cpu_mask_list(&mask, $0.baseAddress, 1024) }
        return out.prefix(Int(n)).map { $0 }
    }

    /// The CPU of the `worker`-th of several runs going at once (explore's workers; 0 for one run
    /// at a time): `choice`'s CPU (`auto`: the one the calling thread is on), then the next ones
    /// this thread may use, round. Nil for `off`, or where there is only one CPU to run on.
    public static func cpu(for choice: Choice, worker: Int = 0) -> Int32? {
        let allowed = allowedCPUs()
        guard allowed.count >= 2 else { return nil }
        let first: Int32
        switch choice {
        case .off: return nil
        case .auto: first = sth_current_cpu()
        case .cpu(let c): first = c
        }
        let start = allowed.firstIndex(of: first) ?? 0
        return allowed[(start + max(0, worker)) % allowed.count]
    }

    /// Runs `body` with the calling thread pinned to `cpu` (nil: as it is), then gives the thread
    /// its mask back. A CPU that cannot be set (gone offline since) runs `body` unpinned.
    public static func pinned<T>(to cpu: Int32?, _ body: () throws -> T) rethrows -> T {
        guard let cpu else { return try body() }
        var saved = sth_cpu_mask()
        guard sth_get_thread_cpus(&saved) == 0, sth_pin_to_cpu(cpu) == 0 else { return try body() }
        defer { _ = sth_set_thread_cpus(&saved) }
        return try body()
    }
}
