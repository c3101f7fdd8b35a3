// sth-focuspledge-server: the stand-in for seed 000's `resolveSession` Cloud Function and its
// stale-session job. All logic lives in FocusPledgeServer; this file only reads arguments.
// Exit status: 0 after SIGTERM/SIGINT, 2 with one line on stderr for any error.
import AppGroup
import ArgumentParser
import FocusPledgeServer
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

@main
struct SettlementServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sth-focuspledge-server",
        abstract: "FocusPledge's settlement server: resolveSession + the stale-heartbeat job, on 127.0.0.1 only.")

    @Option(help: "The append-only ledger journal (created if absent).") var journal: String
    @Option(help: "Device seconds without a heartbeat after which the stale job settles FAILURE no_heartbeat.")
    var staleAfterSeconds: Double
    @Option(help: "Publish the bound port here.") var portFile: String?
    @Option(help: "Trace file (HISTORY.md §8).") var trace: String?
    @Option(help: "Wall-clock period of the stale job, 1...3600000 ms.") var jobIntervalMs: Int = SettlementServerConfiguration.defaultJobIntervalMillis
    @Option(help: "Device root whose clock the server runs on (real time when absent).") var deviceRoot: String?
    @Option(help: "A FocusPledge schedule.json: every pledge in its sessions is created at start, as of its planned start.")
    var pledges: String?
    @Flag(inversion: .prefixedNo, help: "fsync each journal record (the harness, which only ever kills the server, runs without).")
    var journalFsync = true

    /// The harness's own command line without ArgumentParser's start-up cost
    /// (`SettlementServerArguments`): not even this struct is made, whose `@Option`s build
    /// ArgumentParser's tables when they are initialised. Any other command line goes through
    /// ArgumentParser.
    static func main() async {
        let args = Array(CommandLine.arguments.dropFirst())
        guard let plain = SettlementServerArguments(plain: args) else {
            await main(args)
            return
        }
        do {
            try validate(staleAfterSeconds: plain.staleAfterSeconds, jobIntervalMs: plain.jobIntervalMs ?? SettlementServerConfiguration.defaultJobIntervalMillis)
        } catch {
            exit(withError: error)
        }
        await serve(plain)
    }

    func validate() throws { try Self.validate(staleAfterSeconds: staleAfterSeconds, jobIntervalMs: jobIntervalMs) }

    func run() async throws {
        await Self.serve(SettlementServerArguments(
            journal: journal, staleAfterSeconds: staleAfterSeconds, portFile: portFile, trace: trace, jobIntervalMs: jobIntervalMs,
            deviceRoot: deviceRoot, pledges: pledges, journalFsync: journalFsync))
    }

    static func validate(staleAfterSeconds: Double, jobIntervalMs: Int) throws {
        guard staleAfterSeconds.isFinite, staleAfterSeconds > 0 else {
            throw ValidationError("--stale-after-seconds must be a positive number, got \(staleAfterSeconds)")
        }
        guard (1...3_600_000).contains(jobIntervalMs) else {
            throw ValidationError("--job-interval-ms must be an integer in 1...3600000, got \(jobIntervalMs)")
        }
    }

    static func serve(_ a: SettlementServerArguments) async {
        let journal = a.journal, staleAfterSeconds = a.staleAfterSeconds, portFile = a.portFile, trace = a.trace
        let jobIntervalMs = a.jobIntervalMs ?? SettlementServerConfiguration.defaultJobIntervalMillis
        let deviceRoot = a.deviceRoot, pledges = a.pledges, journalFsync = a.journalFsync ?? true
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        let logger = Logger(label: "settlement-server")
        @Sendable func fail(_ message: String) -> Never {
            logger.critical("\(message.split(whereSeparator: \.isNewline).joined(separator: " "))")
            Glibc.exit(2)
        }
        // The server reads the same device clock as the stand-ins, so its stale job runs in device time.
        let clock: DeviceClock
        var stepped: SettlementHTTPServer.SteppedTime?
        if let deviceRoot {
            do {
                let root = try DeviceRoot(path: deviceRoot, create: false)
                clock = DeviceClock(deviceRoot: root)
                // Under stepped virtual time the server is a participant (PROTOCOL.md §9).
                if clock.isStepped, let channel = SchedulerChannel.open(deviceRoot: root) {
                    stepped = .init(center: try DarwinNotificationCenter(deviceRoot: root), channel: channel)
                }
            } catch { fail("--device-root \(deviceRoot): \(error)") }
        } else {
            clock = DeviceClock(deviceRoot: nil)
        }
        var configuration = SettlementServerConfiguration(
            journalPath: journal, portFilePath: portFile, tracePath: trace,
            staleAfterSeconds: staleAfterSeconds, jobIntervalMillis: jobIntervalMs)
        configuration.journalFsync = journalFsync
        if let pledges {
            do { configuration.pledges = try PlannedPledges.read(path: pledges) } catch { fail(error.description) }
            // At a fixed rate the device time at the clock's anchor is the run's start (the harness
            // writes the clock before it starts anyone); the server's own first `now` is a few
            // device seconds later — at 900x, milliseconds of process start-up — and would move
            // every planned pledge's end by as much (`no-early-success`). Stepped time stands still
            // until every participant is idle, so there `now` is exact.
            if let c = clock.configuration(), !c.isStepped {
                configuration.pledgesOrigin = Date(timeIntervalSince1970: c.epochUnixSeconds + c.offsetSeconds)
            }
        }
        do {
            try await SettlementHTTPServer.run(configuration: configuration, now: { clock.now() }, stepped: stepped, onFatal: { fail($0) })
        } catch {
            fail("\(error)")
        }
    }
}
