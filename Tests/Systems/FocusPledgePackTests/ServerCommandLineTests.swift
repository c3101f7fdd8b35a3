import FocusPledgePack
import FocusPledgeServer
import HarnessKit
import Testing

/// The settlement server reads the command line the pack writes for it without ArgumentParser,
/// every option as the pack meant it; anything else is left to ArgumentParser.
@Suite(.timeLimit(.minutes(3))) struct ServerCommandLineTests {
    @Test func thePacksServerCommandLineIsReadWhole() throws {
        let pack = FocusPledgePack()
        let role = try #require(pack.descriptor.role("settlement-server"))
        let run = RunPaths(runDirectory: "/tmp/run", deviceRoot: "/dev/shm/root")
        let configuration = FocusPledgeConfiguration(workload: .init(blockedApps: ["a"]), staleAfterMinutes: 7)
        let args = pack.launchArguments(for: role, configuration: configuration, run: run)
        let a = try #require(SettlementServerArguments(plain: args))
        #expect(a.journal == "/tmp/run/settlement-server/ledger.jsonl")
        #expect(a.staleAfterSeconds == 420)
        #expect(a.portFile == run.portFile(role.name))
        #expect(a.trace == run.trace(role.name))
        #expect(a.jobIntervalMs == 20)
        #expect(a.deviceRoot == "/dev/shm/root")
        #expect(a.pledges == "/tmp/run/schedule.json")
        #expect(a.journalFsync == false)
    }

    @Test func everyOtherCommandLineGoesToArgumentParser() {
        let base = ["--journal", "j", "--stale-after-seconds", "900"]
        #expect(SettlementServerArguments(plain: base) != nil)
        for args in [
            [], ["--help"], ["--journal", "j"], base + ["--stale-after-seconds", "1"], ["--journal=j", "--stale-after-seconds", "900"],
            base + ["--job-interval-ms", "x"], base + ["--no-journal-fsync", "--journal-fsync"], base + ["--unknown", "1"],
            ["--journal", "j", "--stale-after-seconds", "ninety"], base + ["--trace"], base + ["--trace", "-x"],
        ] {
            #expect(SettlementServerArguments(plain: args) == nil, "\(args)")
        }
    }
}
