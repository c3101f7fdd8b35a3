import ArgumentParser

@main
struct Harness: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "harness",
        abstract: "ScreenTimeHarness: runs iOS Screen Time app protocols as real processes and checks them.",
        subcommands: [RunCommand.self, CheckCommand.self, PlanCommand.self, NormalizeCommand.self, SystemsCommand.self, DoctorCommand.self, BenchCommand.self, BenchPongCommand.self],
        defaultSubcommand: RunCommand.self)
}

/// Shared `--device-root` option.
struct DeviceRootOptions: ParsableArguments {
    @Option(name: .customLong("device-root"), help: "Device root directory (default: $SCREENTIME_DEVICE_ROOT, else /dev/shm/screentime-harness-<uid>/device).")
    var deviceRoot: String?
}
