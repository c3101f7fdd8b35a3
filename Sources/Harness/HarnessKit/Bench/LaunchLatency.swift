import Foundation

/// Launch latency read from a run's history: from the harness's `spawn` — the moment it began
/// (`spawnMono`), else the line's own stamp — to the child's first history line (any line with the
/// child's pid), per role (`target`). Both are `mono` stamps of one machine's monotonic clock, so
/// the difference is wall time whatever the device clock did.
public enum LaunchLatency {
    public struct Role: Codable, Equatable, Sendable {
        public var role: String
        public var stats: LatencyStats
        /// Spawns whose child never wrote a line (killed before its first, or failed to start).
        public var silent: Int
        public init(role: String, stats: LatencyStats, silent: Int) {
            self.role = role
            self.stats = stats
            self.silent = silent
        }
    }

    public struct Summary: Codable, Equatable, Sendable {
        /// Per role, sorted by role name.
        public var roles: [Role]
        /// Every launch of the run together (nil when no child wrote a line).
        public var all: LatencyStats?
    }

    /// Per role, sorted by role name, and all together. Lines that are not JSON objects are skipped (a history cut
    /// by a kill ends in a partial line); a spawn without `childPid` or `mono` is ignored.
    public static func summary(historyPath: String) throws -> Summary {
        let data = try Data(contentsOf: URL(fileURLWithPath: historyPath))
        return summary(lines: data.split(separator: UInt8(ascii: "\n")).lazy.map { Data($0) })
    }

    public static func summary<S: Sequence>(lines: S) -> Summary where S.Element == Data {
        // pid → (role, spawn mono) of the spawns still waiting for their child's first line.
        var waiting: [String: (role: String, mono: Int64)] = [:]
        // The harness writes its spawn line once the spawn has returned; a quick child's first
        // line can come before it (history is in `mono` order). A pid's first line while no spawn
        // claims it waits here for its spawn line, and counts as 0 (it began before the line).
        var early: [String: Int64] = [:]
        var claimed: Set<String> = []
        var samples: [String: [Int64]] = [:]
        var silent: [String: Int] = [:]
        for line in lines {
            guard let o = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any],
                let mono = (o["mono"] as? NSNumber)?.int64Value
            else { continue }
            if let pid = (o["pid"] as? NSNumber).map({ String($0.int64Value) }) {
                if let w = waiting.removeValue(forKey: pid) {
                    samples[w.role, default: []].append(mono - w.mono)
                    claimed.insert(pid)
                } else if !claimed.contains(pid), early[pid] == nil {
                    early[pid] = mono
                }
            }
            if o["event"] as? String == "spawn", let child = o["childPid"].map({ "\($0)" }), let role = o["target"] as? String {
                // When the spawn began (a harness that records it): the line itself is written once
                // the spawn returned, which on one CPU is after the child's start-up.
                let mono = (o["spawnMono"] as? String).flatMap { Int64($0) } ?? mono
                samples[role, default: []] += []
                // A pid the kernel handed out again before the last child wrote anything.
                if let w = waiting[child] { silent[w.role, default: 0] += 1 }
                if let first = early.removeValue(forKey: child) {
                    samples[role, default: []].append(max(0, first - mono))
                    claimed.insert(child)
                    waiting[child] = nil
                } else {
                    claimed.remove(child)
                    waiting[child] = (role, mono)
                }
            }
        }
        for w in waiting.values { silent[w.role, default: 0] += 1 }
        let roles = samples.keys.sorted().compactMap { role -> Role? in
            guard let s = samples[role], !s.isEmpty else { return nil }
            return Role(role: role, stats: LatencyStats(samplesNanos: s), silent: silent[role] ?? 0)
        }
        let every = samples.values.flatMap { $0 }
        return Summary(roles: roles, all: every.isEmpty ? nil : LatencyStats(samplesNanos: every))
    }

}
