import AppGroup
import ArgumentParser
import Foundation
import HarnessKit
import Supervision

#if canImport(Glibc)
import Glibc
#endif

/// The harness as a library: a team's own executable is the whole harness plus its systems,
///
///     import HarnessCLI
///     @main struct AppHarness { static func main() { HarnessCLI.main(systems: [MyAppPack()]) } }
///
/// with every verb (run, explore, replay, shrink, check, …). The bundled seed packs are not part
/// of this library; the `harness` executable of this package is this call with them.
public enum HarnessCLI {
    /// The systems this executable runs (`main(systems:)` sets it once, before any verb runs).
    nonisolated(unsafe) static var catalog = SystemCatalog([])

    /// Parses the command line, runs the verb and exits with its code (0 held, 1 violation,
    /// 2 undecided or bad input): never returns.
    public static func main(systems: [any SystemPack]) -> Never {
        main(catalog: SystemCatalog(systems.map { AnySystemPack($0) }))
    }

    /// `main(systems:)` with a catalog already made (the bundled packs' registry).
    public static func main(catalog: SystemCatalog) -> Never {
        Self.catalog = catalog
        ScenarioRunner.commandName = Harness.executableName
        Harness.runAndExit()
    }
}

struct Harness: ParsableCommand {
    /// The executable's own name in help and messages: `harness` here, a team's `<app>-harness`.
    static let executableName: String = Executables.currentName

    static let configuration = CommandConfiguration(
        commandName: executableName,
        abstract: "ScreenTimeHarness: runs iOS Screen Time app protocols as real processes and checks them.",
        discussion: """
            Exit codes, every verb: 0 held (or done), 1 a violation (run, check) or what was asked for is \
            not there (notify wait: no post in time; defaults read/delete: no such key), 2 could not decide \
            or bad input (one line on stderr naming what to fix), 130/143 a run stopped by SIGINT/SIGTERM.
            """,
        subcommands: [
            RunCommand.self, InitCommand.self, ExploreCommand.self, ReplayCommand.self, ShrinkCommand.self, WhyCommand.self, CoverageCommand.self, MergeCommand.self, CheckCommand.self, ReportCommand.self, PlanCommand.self, NormalizeCommand.self, SystemsCommand.self, DoctorCommand.self, WatchCommand.self,
            BenchCommand.self, NotifyCommand.self, DefaultsCommand.self, CleanCommand.self, BenchPongCommand.self,
            HeartbeatsCommand.self, ExplorePointCommand.self, TrialCommand.self,
        ],
        defaultSubcommand: RunCommand.self)

    /// Instead of ArgumentParser's `main()`: every error becomes one line on stderr and exit 2
    /// (ArgumentParser would exit 64 for usage errors and 1 — the code of a violation — for any
    /// other error, with a multi-line dump).
    static func runAndExit() -> Never {
        do {
            try HarnessExit.requireUTF8Arguments()
            var command = try parseAsRoot()
            try command.run()
            Glibc.exit(HarnessExit.flushedStandardOutput() ?? 0)
        } catch {
            let code = HarnessExit.report(error)
            Glibc.exit(HarnessExit.flushedStandardOutput() ?? code)
        }
    }
}

/// The exit codes of every verb (docs/CI.md "Exit codes", docs/HISTORY.md §8, docs/BAD-INPUTS.md).
enum HarnessExit {
    static let held: Int32 = 0
    static let violation: Int32 = 1
    static let undecided: Int32 = 2

    /// Prints `error` as one line (unless the command already did and threw `ExitCode`) and
    /// returns the process's exit code.
    static func report(_ error: Error) -> Int32 {
        if let code = error as? ExitCode { return code.rawValue }
        if Harness.exitCode(for: error) == .success {  // --help, --version
            print(Harness.fullMessage(for: error))
            return 0
        }
        fail(describe(error))
        return undecided
    }

    /// One line, whatever the error: ArgumentParser's short message, a Foundation error's
    /// localized description (never the NSError dump), else the error's description.
    static func describe(_ error: Error) -> String {
        let ns = error as NSError
        var text: String
        if ns.domain == NSCocoaErrorDomain || ns.domain == NSPOSIXErrorDomain {
            text = OneLineError.describe(error)
        } else if let e = error as? CustomStringConvertible, !(String(reflecting: type(of: error)).hasPrefix("ArgumentParser.")) {
            text = e.description
        } else {
            text = Harness.message(for: error)
            if text.hasPrefix("Error: ") { text.removeFirst(7) }
            text += " (see '\(commandPath(CommandLine.arguments.dropFirst())) --help')"
        }
        if text.hasPrefix("Error: ") { text.removeFirst(7) }
        return oneLine(text)
    }

    /// `harness notify wait` for `harness notify wait x --bogus`: the verbs named on the command line.
    static func commandPath(_ arguments: ArraySlice<String>) -> String {
        var path = [Harness.executableName]
        var commands: [ParsableCommand.Type] = Harness.configuration.subcommands
        for argument in arguments {
            guard let next = commands.first(where: { $0._commandName == argument }) else { break }
            path.append(argument)
            commands = next.configuration.subcommands
        }
        return path.joined(separator: " ")
    }

    /// The longest run of non-blank characters a message shows whole: a path or value past it
    /// (a 3000-byte `--out`) is cut to its start, with its length.
    static let longestWord = 200

    /// The message on one line, and the excerpt rule as a last net under every message: a control
    /// character or terminal escape never reaches the terminal raw, and no word runs on for
    /// kilobytes, whichever verb built the message.
    static func oneLine(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "; ")
        return line.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            let escaped = word.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
            guard escaped || word.count > longestWord else { return String(word) }
            let cut = word.count > longestWord ? " (\(word.utf8.count) bytes)" : ""
            return Excerpt.inner(String(word), limit: longestWord) + cut
        }.joined(separator: " ")
    }

    /// Every argument must be UTF-8: Swift's `CommandLine.arguments` repairs invalid bytes to
    /// U+FFFD, so `notify post $'\xff\xfe'` posted a name nobody typed. One line naming
    /// the argument and its first bytes, exit 2.
    static func requireUTF8Arguments() throws {
        for i in 1..<Int(CommandLine.argc) {
            guard let arg = CommandLine.unsafeArgv[i], String(validatingCString: arg) == nil else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(arg).assumingMemoryBound(to: UInt8.self), count: strlen(arg))
            let hex = bytes.prefix(16).map { String($0, radix: 16) }.joined(separator: " ") + (bytes.count > 16 ? " …" : "")
            throw InputError("argument \(i) is not UTF-8 text (bytes \(hex)); names, keys and values are UTF-8")
        }
    }

    /// What a verb printed reaches standard output whole, or the verb says it did not: `harness plan
    /// > /dev/full` (a full disk, a closed pipe) exits 2 with one line, not 0 with the plan lost.
    /// nil when everything was written (or stdout was never used); else the exit code, after the line.
    static func flushedStandardOutput() -> Int32? {
        errno = 0
        let flushed = fflush(standardOutputStream) == 0
        let e = errno
        guard !flushed || ferror(standardOutputStream) != 0 else { return nil }
        // An earlier buffer's failure leaves only the error flag: its errno is gone.
        fail("cannot write standard output: " + (flushed || e == 0 ? "a write failed" : String(cString: strerror(e))))
        return undecided
    }

    /// Prints `error: <message>` (one line) to stderr.
    static func fail(_ message: String) {
        FileHandle.standardError.write(Data("error: \(oneLine(message))\n".utf8))
    }
}

/// A bad input found before anything ran: one line, exit 2.
struct InputError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

extension CPUPinning {
    /// `HARNESS_CPU` (CPUPinning), or a one-line input error (exit 2).
    static func fromEnvironment() throws -> CPUPinning.Choice {
        do { return try CPUPinning.choice() } catch { throw InputError(error.description) }
    }
}

/// Shared `--device-root` option, with one rule for every verb.
struct DeviceRootOptions: ParsableArguments {
    @Option(name: .customLong("device-root"), help: "Device root directory (default: $SCREENTIME_DEVICE_ROOT, else /dev/shm/screentime-harness-<uid>/device).")
    var deviceRoot: String?

    /// Where the path came from, for messages.
    var source: String {
        if let deviceRoot, !deviceRoot.isEmpty { return "--device-root" }
        if let env = ProcessInfo.processInfo.environment[DeviceRoot.environmentVariable], !env.isEmpty { return DeviceRoot.environmentVariable }
        return "the default device root"
    }

    /// What a device root holds at its top (PROTOCOL.md §1): one of them marks a directory as one.
    static let layout: Set<String> = ["clock", "containers", "notify", "sandboxes", "system", DeviceRoot.quarantineFileName]

    /// The resolved root (PROTOCOL.md §1 "Where"). A symlink is refused for every verb, as below
    /// the root; anything but a directory too; `mustExist`: it must be there already.
    func path(mustExist: Bool) throws -> String {
        let p = DeviceRoot.resolvePath(flag: deviceRoot)
        var st = stat()
        if lstat(p, &st) == 0 {
            if (st.st_mode & S_IFMT) == S_IFLNK {
                throw InputError("device root \(p) (\(source)) is a symlink; pass the directory itself (no device root is reached through a symlink)")
            }
            if (st.st_mode & S_IFMT) != S_IFDIR { throw InputError("device root \(p) (\(source)) is not a directory") }
            // An empty directory becomes a device root; one holding other things is not one (a
            // `defaults read` there made containers/ beside a user's files).
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: p)) ?? []
            if !entries.isEmpty && !entries.contains(where: Self.layout.contains) {
                throw InputError("\(p) (\(source)) is not a device root: it holds none of \(Self.layout.sorted().joined(separator: ", ")); pass a run's device root or an empty directory")
            }
        } else if mustExist {
            throw InputError("no device root at \(p) (\(source)); pass --device-root DIR of a live run (its run_started line says deviceRoot) or a kept one")
        }
        return p
    }
}
