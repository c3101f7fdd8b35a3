import EnforcementPack
import ExitPack
import ExitStandIns
import FocusPledgePack
import FocusPledgeServer
import FocusPledgeStandIns
import HarnessKit
import StandInKit
import StandInRuntime
import SystemKit
import PushinPack
import RallyPack
import UntilPack

/// Every seed system the harness ships. A new pack adds one line here (and its targets in
/// Package.swift); nothing in the core changes.
public enum SystemRegistry {
    public static let catalog: SystemCatalog = {
        registerInProcessStandIns()
        return SystemCatalog([
        AnySystemPack(FocusPledgePack()),
        AnySystemPack(PushinPack()),
        AnySystemPack(RallyPack()),
        AnySystemPack(UntilPack()),
        AnySystemPack(ExitPack()),
        AnySystemPack(EnforcementPack()),
        ])
    }()

    /// The stand-ins the harness can run inside its own process (`harness run --in-process`).
    static func registerInProcessStandIns() {
        InProcessStandIns.register(executable: "sth-focuspledge", FocusPledgeCommand.inProcessEntry)
        InProcessStandIns.register(executable: "sth-focuspledge-server", SettlementInProcessServer.entry)
        InProcessStandIns.register(executable: "sth-exit", ExitCommand.inProcessEntry)
    }
}
