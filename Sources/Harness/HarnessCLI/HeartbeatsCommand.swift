import ArgumentParser
import Foundation
import HarnessKit
import History


/// `harness heartbeats RUN_DIR…`: the heartbeats the runs recorded, replayed offline
/// through the core's detectors — the seed's own rule, a fixed-threshold sweep, phi accrual at
/// several thresholds — with false alarms per device hour and detection latency side by side.
struct HeartbeatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "heartbeats",
        abstract: "Replay recorded heartbeats through fixed-threshold and phi-accrual detectors: false alarms vs. detection latency.",
        discussion: """
            For each heartbeat monitor the runs' system declares (harness systems --json: heartbeats), every \
            recorded beat of every run is fed to the core's HeartbeatClassifier under each setting, which decides \
            "dead" the instant its detector crosses (a real monitor decides when it polls: add up to one poll). \
            Each decision is judged against the writer's real state from the history: a false alarm while it ran, \
            was stopped by the nemesis, suspended by iOS, or idle between on-demand calls; a death detected when a \
            decision falls while it was dead (killed, crashed, exited), with the latency from the death. \
            Every monitor a pack declares is replayed, whatever the run's variant. Exit 0 done, 2 bad input.
            """)

    @Argument(help: "Run directories (or history .jsonl files).") var runs: [String]
    @Option(parsing: .unconditional, help: "Name the setting with at most this many false alarms per device day (the most deaths detected, then the lowest p99).")
    var maxFalseAlarmsPerDay: Double?
    @Flag(help: "Print the tables as JSON.") var json = false

    func run() throws {
        if let n = maxFalseAlarmsPerDay, !(n.isFinite && n >= 0) {
            throw InputError("--max-false-alarms-per-day \(n): must be a number of at least 0, e.g. 1")
        }
        var inputs: [String: [HeartbeatReplay.RunInput]] = [:]
        var order: [String] = []
        var noMonitor: [String] = []
        var partial: [String: Int] = [:]
        for r in runs {
            let (events, source, _) = try CheckCommand.history(of: r.hasSuffix("/") ? String(r.dropLast()) : r)
            let started = events.first { $0.isHarnessLine("run_started") }
            guard let id = started?["system"] else {
                throw InputError("\(source) names no system (no run_started line with a system): not a run's history")
            }
            guard let pack = HarnessCLI.catalog.pack(id) else {
                throw InputError("\(source): unknown system '\(id)'; known: \(HarnessCLI.catalog.ids.joined(separator: ", "))")
            }
            // Every monitor the pack declares, whatever the run's variant: the replay asks what the
            // rule would decide on these beats (hardened Exit writes the beat and runs no monitor).
            let model = pack.descriptor.heartbeats
            let cutShort = !events.contains { $0.isHarnessLine("run_finished") } || events.contains { $0.isHarnessLine(RunJudgement.interruptedEvent) }
            if model.monitors.isEmpty { noMonitor.append(source) }
            for m in model.monitors {
                guard let w = model.writer(m.writer) else { continue }
                let key = "\(id) \(m.name)"
                if inputs[key] == nil { order.append(key) }
                inputs[key, default: []].append(.init(events: HistoryMerge.sorted(events), monitor: m, writer: w, lifetime: pack.descriptor.role(w.role)?.lifetime))
                if cutShort { partial[key, default: 0] += 1 }
            }
        }
        guard !order.isEmpty else {
            let declaring = HarnessCLI.catalog.ids.filter { HarnessCLI.catalog.pack($0)?.descriptor.heartbeats.monitors.isEmpty == false }
            throw InputError(
                "\(noMonitor.first ?? "the runs"): its system declares no heartbeat monitor; systems that do: "
                    + declaring.joined(separator: ", "))
        }
        var tables: [HeartbeatReplay.Table] = []
        for key in order {
            let group = inputs[key]!
            let first = group[0]
            let settings = HeartbeatReplay.settings(seedThreshold: first.monitor.threshold(in: first.events))
            var table = HeartbeatReplay.table(
                system: String(key.split(separator: " ").first ?? ""), group, settings: settings, maxFalseAlarmsPerDay: maxFalseAlarmsPerDay)
            table.partialRuns = partial[key] ?? 0
            tables.append(table)
        }
        if json {
            let enc = JSONEncoder()
            enc.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try enc.encode(tables), as: UTF8.self))
        } else {
            print(tables.map(HeartbeatReplay.render).joined(separator: "\n\n"))
            if !noMonitor.isEmpty { print("\n\(noMonitor.count) run(s) of a system with no heartbeat monitor left out (e.g. \(noMonitor[0]))") }
        }
    }
}
