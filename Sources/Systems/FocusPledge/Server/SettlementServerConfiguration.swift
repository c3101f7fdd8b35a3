import Foundation
import StandInRuntime
import SystemKit

/// Everything `SettlementHTTPServer.run` needs besides the clock.
public struct SettlementServerConfiguration: Sendable {
    /// The append-only ledger journal (created if absent).
    public var journalPath: String
    /// Where to publish the bound port (`<run-dir>/settlement-server.port`); nil = don't.
    public var portFilePath: String?
    /// `<run-dir>/trace/settlement-server.jsonl`; nil = no trace.
    public var tracePath: String?
    /// Device seconds without a heartbeat after which the stale job settles a session FAILURE.
    public var staleAfterSeconds: Double
    /// Wall-clock period of the stale job.
    public var jobIntervalMillis: Int
    public var limits: SettlementLimits
    public var maxJournalBytes: Int
    /// fsync each journal record (see `LedgerJournal.syncsEachRecord`).
    public var journalFsync = true
    public var maxRequestBodyBytes: Int
    /// Pledges the server creates at start (`PlannedPledges`; pack README, A1); nil = none.
    public var pledges: PlannedPledges?
    /// The device time `pledges`' offsets count from when the ledger holds none of them yet; nil =
    /// the server's first `now`.
    public var pledgesOrigin: Date?

    public static let defaultJobIntervalMillis = 100
    public static let defaultMaxRequestBodyBytes = 64 << 10

    public init(
        journalPath: String,
        portFilePath: String? = nil,
        tracePath: String? = nil,
        staleAfterSeconds: Double,
        jobIntervalMillis: Int = defaultJobIntervalMillis,
        limits: SettlementLimits = .standard,
        maxJournalBytes: Int = LedgerJournal.defaultMaxJournalBytes,
        maxRequestBodyBytes: Int = defaultMaxRequestBodyBytes
    ) {
        self.journalPath = journalPath
        self.portFilePath = portFilePath
        self.tracePath = tracePath
        self.staleAfterSeconds = staleAfterSeconds
        self.jobIntervalMillis = jobIntervalMillis
        self.limits = limits
        self.maxJournalBytes = maxJournalBytes
        self.maxRequestBodyBytes = maxRequestBodyBytes
    }
}

/// `sth-focuspledge-server`'s options in the plain form the harness writes
/// (`FocusPledgePack.launchArguments`, read by `PlainCommandLine`); nil for any other command
/// line, which then goes to ArgumentParser.
public struct SettlementServerArguments: Sendable, Equatable {
    public var journal: String
    public var staleAfterSeconds: Double
    public var portFile: String?
    public var trace: String?
    public var jobIntervalMs: Int?
    public var deviceRoot: String?
    public var pledges: String?
    public var journalFsync: Bool?

    static let options: Set<String> = [
        "--journal", "--stale-after-seconds", "--port-file", "--trace", "--job-interval-ms", "--device-root", "--pledges",
    ]
    static let flags: Set<String> = ["--journal-fsync", "--no-journal-fsync"]

    public init(
        journal: String, staleAfterSeconds: Double, portFile: String?, trace: String?, jobIntervalMs: Int?,
        deviceRoot: String?, pledges: String?, journalFsync: Bool?
    ) {
        self.journal = journal
        self.staleAfterSeconds = staleAfterSeconds
        self.portFile = portFile
        self.trace = trace
        self.jobIntervalMs = jobIntervalMs
        self.deviceRoot = deviceRoot
        self.pledges = pledges
        self.journalFsync = journalFsync
    }

    public init?(plain args: [String]) {
        guard let line = PlainCommandLine(args, options: Self.options, flags: Self.flags),
            let journal = line.values["--journal"],
            let stale = line.values["--stale-after-seconds"].flatMap(Double.init), line.flags.count <= 1
        else { return nil }
        self.journal = journal
        staleAfterSeconds = stale
        portFile = line.values["--port-file"]
        trace = line.values["--trace"]
        if let ms = line.values["--job-interval-ms"] {
            guard let v = Int(ms) else { return nil }
            jobIntervalMs = v
        }
        deviceRoot = line.values["--device-root"]
        pledges = line.values["--pledges"]
        journalFsync = line.flags.first.map { $0 == "--journal-fsync" }
    }
}
