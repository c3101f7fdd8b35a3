import StandInRuntime
import SystemKit
import ArgumentParser

/// A stand-in executable whose roles the harness starts with plain argument forms
/// (`FrameworkCallOptions.plain`): those run without ArgumentParser's start-up cost (a virtual-time
/// run starts hundreds of processes); anything else (help, a typo) goes through ArgumentParser.
/// One entry point for every pack, instead of a copy of `launch` per pack.
public protocol PlainLaunchable: ParsableCommand {
    /// The command for `args` when they are in a plain form, else nil.
    static func plainCommand(_ args: [String]) -> ParsableCommand?
}

extension PlainLaunchable {
    /// Starts the role the arguments name.
    public static func launch(_ args: [String] = Array(CommandLine.arguments.dropFirst())) {
        guard var command = plainCommand(args) else {
            main(args)
            return
        }
        do { try command.run() } catch { exit(withError: error) }
    }
}

extension PlainLaunchable {
    /// The role's command for the harness to run inside its own process (`InProcessStandIns`):
    /// the same command the executable runs, from the same plain arguments.
    public static var inProcessEntry: InProcessStandIns.Entry {
        { args in
            guard var command = plainCommand(args) else {
                throw InProcessExit(code: 64)  // not a plain form: only the executable's own parser takes it
            }
            try command.run()
        }
    }
}
