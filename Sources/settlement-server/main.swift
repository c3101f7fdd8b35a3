// settlement-server: the stand-in for seed 000's `resolveSession` Cloud Function and its stale-session
// job. All logic lives in the Settlement library; this file only reads arguments and reports errors.
//
//   settlement-server --journal PATH --stale-after-seconds N [--port-file PATH] [--trace PATH]
//                     [--job-interval-ms N] [--device-root PATH]
//
// Exit status: 0 after SIGTERM/SIGINT, 2 with one line on stderr for any error.
import AppGroup
import Foundation
import Settlement

#if canImport(Glibc)
import Glibc
#endif

let usage = """
    usage: settlement-server --journal PATH --stale-after-seconds SECONDS [--port-file PATH] \
    [--trace PATH] [--job-interval-ms MILLIS] [--device-root PATH]
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("settlement-server: \(message.split(whereSeparator: \.isNewline).joined(separator: " "))\n".utf8))
    exit(2)
}

struct Arguments {
    var journalPath: String?
    var portFilePath: String?
    var tracePath: String?
    var staleAfterSeconds: Double?
    var jobIntervalMillis = SettlementServerConfiguration.defaultJobIntervalMillis
    /// The device root whose clock the server runs on (real time when absent).
    var deviceRoot: String?
}

func parseArguments(_ argv: [String]) -> Arguments {
    var parsed = Arguments()
    var index = 0
    func value(for option: String) -> String {
        index += 1
        guard index < argv.count else { fail("\(option) needs a value") }
        return argv[index]
    }
    while index < argv.count {
        let option = argv[index]
        switch option {
        case "--journal": parsed.journalPath = value(for: option)
        case "--port-file": parsed.portFilePath = value(for: option)
        case "--trace": parsed.tracePath = value(for: option)
        case "--device-root": parsed.deviceRoot = value(for: option)
        case "--stale-after-seconds":
            let text = value(for: option)
            guard let seconds = Double(text), seconds.isFinite, seconds > 0 else {
                fail("--stale-after-seconds must be a positive number, got \"\(text)\"")
            }
            parsed.staleAfterSeconds = seconds
        case "--job-interval-ms":
            let text = value(for: option)
            guard let millis = Int(text), millis > 0, millis <= 3_600_000 else {
                fail("--job-interval-ms must be an integer in 1...3600000, got \"\(text)\"")
            }
            parsed.jobIntervalMillis = millis
        case "-h", "--help":
            print(usage)
            exit(0)
        default:
            fail("unknown argument \"\(option)\"; \(usage)")
        }
        index += 1
    }
    return parsed
}

let arguments = parseArguments(Array(CommandLine.arguments.dropFirst()))
guard let journalPath = arguments.journalPath else { fail("--journal is required; \(usage)") }
guard let staleAfterSeconds = arguments.staleAfterSeconds else { fail("--stale-after-seconds is required; \(usage)") }

let configuration = SettlementServerConfiguration(
    journalPath: journalPath,
    portFilePath: arguments.portFilePath,
    tracePath: arguments.tracePath,
    staleAfterSeconds: staleAfterSeconds,
    jobIntervalMillis: arguments.jobIntervalMillis)

// The server reads the same device clock as the stand-ins (virtual time when <root>/clock exists),
// so its stale-heartbeat job runs in device time.
let deviceClock: DeviceClock
if let rootPath = arguments.deviceRoot {
    do { deviceClock = DeviceClock(deviceRoot: try DeviceRoot(path: rootPath, create: false)) } catch { fail("--device-root \(rootPath): \(error)") }
} else {
    deviceClock = DeviceClock(deviceRoot: nil)
}

do {
    try await SettlementHTTPServer.run(
        configuration: configuration,
        now: { deviceClock.now() },
        onFatal: { message in fail(message) })
} catch {
    fail(String(describing: error))
}
exit(0)
