import Foundation
import History
import Supervision
import SystemKit

#if canImport(Glibc)
import Glibc
#endif

/// The most a fork server could give explore with real processes: one warm zygote per stand-in
/// executable (its runtime, Foundation and argument parsing already up) forking a child per launch
/// instead of starting the executable. It saves each launch's start-up and nothing else — the
/// child still does the role's work, its HTTP, its clock reads and its history lines. So a run
/// under a fork server costs at least its CPU time today minus every launch's start-up; this
/// measures both in the same run: the launches from the run's history (long-lived spawns and
/// extension calls that started a process), the start-up of each executable as the CPU time of
/// starting it with `--help` (runtime, static initialisers, argument parsing; it exits before any
/// device work) less that of starting `/bin/true` (a fork and an exec: what a zygote's fork costs
/// at least). A bound, generous to the fork server: a warm zygote's fork of a large process costs
/// more than that of `/bin/true`.
public struct ForkServerBound: Codable, Sendable, Equatable {
    /// Launches of the run by executable (its file name).
    public var launches: [String: Int]
    /// Each executable's start-up, CPU milliseconds: `--help` less `/bin/true`.
    public var startupMillis: [String: Double]
    /// `/bin/true`'s start, CPU milliseconds (subtracted from each).
    public var forkMillis: Double
    /// CPU seconds a run saves at most: every launch's start-up.
    public var savedCPUSecondsPerRun: Double

    public var launchCount: Int { launches.values.reduce(0, +) }

    /// Launches of `history` by executable: every `spawn` of a role, and every extension call iOS
    /// started a process for (`callback_delivered` or `callback_started` with a `childPid`).
    public static func launches(in history: [HistoryEvent], roles: [ProcessRole]) -> [String: Int] {
        let byRole = Dictionary(roles.map { ($0.name, ($0.executable as NSString).lastPathComponent) }) { a, _ in a }
        var out: [String: Int] = [:]
        for e in history where e.process == HistoryEvent.harnessProcessName {
            let role: String?
            switch e.harnessLine {
            case .spawn?: role = e["target"]
            case .callbackDelivered?, .callbackStarted?:
                guard let pid = e["childPid"], pid != "-", let callback = e["callback"] else { continue }
                role = roles.first { $0.lifetime == .extension(ExtensionCall.point(ofCallback: callback)) }?.name
            default: continue
            }
            guard let role, let exe = byRole[role] else { continue }
            out[exe, default: 0] += 1
        }
        return out
    }

    /// Measures each executable's start-up (`samples` starts each, alternating with `/bin/true`)
    /// and bounds what a fork server saves a run with `launches`. Nil when an executable does not
    /// start and exit 0 with `--help` (it speaks no argument parser): no bound is claimed then.
    public static func measure(launches: [String: Int], roles: [ProcessRole], binDirectory: String, samples: Int = 30) -> ForkServerBound? {
        var startup: [String: Double] = [:]
        var forkTotal = 0.0, forkCount = 0
        for (exe, _) in launches.sorted(by: { $0.key < $1.key }) {
            guard let role = roles.first(where: { ($0.executable as NSString).lastPathComponent == exe }) else { return nil }
            let path = role.executablePath(binDirectory: binDirectory)
            var own = 0.0
            for _ in 0..<samples {
                guard let cpu = cpuOfOneStart(path, role.arguments + ["--help"]), let base = cpuOfOneStart("/bin/true", []) else { return nil }
                own += cpu
                forkTotal += base
                forkCount += 1
            }
            startup[exe] = own / Double(samples)
        }
        let fork = forkCount == 0 ? 0 : forkTotal / Double(forkCount)
        let millis = startup.mapValues { max(0, $0 - fork) * 1000 }
        let saved = launches.reduce(0.0) { $0 + Double($1.value) * (millis[$1.key] ?? 0) / 1000 }
        return ForkServerBound(launches: launches, startupMillis: millis, forkMillis: fork * 1000, savedCPUSecondsPerRun: saved)
    }

    /// CPU seconds (user + system) of one start of `path` to its exit, nil unless it exited 0.
    static func cpuOfOneStart(_ path: String, _ arguments: [String]) -> Double? {
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        let before = CPUTime.childrenSeconds
        guard let child = try? ChildProcess.spawn(path, arguments, captureStdout: false, stdoutTo: null, stderrTo: null),
            let status = child.wait(timeout: .seconds(10)) ?? child.killAndReap()
        else { return nil }
        guard case .exited(0) = status else { return nil }
        return CPUTime.childrenSeconds - before
    }
}
