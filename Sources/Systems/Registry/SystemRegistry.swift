import EnforcementPack
import ExitPack
import FocusPledgePack
import HarnessKit
import PushinPack
import RallyPack
import UntilPack

/// Every seed system the harness ships. A new pack adds one line here (and its targets in
/// Package.swift); nothing in the core changes.
public enum SystemRegistry {
    public static let catalog = SystemCatalog([
        AnySystemPack(FocusPledgePack()),
        AnySystemPack(PushinPack()),
        AnySystemPack(RallyPack()),
        AnySystemPack(UntilPack()),
        AnySystemPack(ExitPack()),
        AnySystemPack(EnforcementPack()),
    ])
}
