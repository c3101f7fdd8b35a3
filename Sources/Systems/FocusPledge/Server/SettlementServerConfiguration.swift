import Foundation

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
