// Preamble (not seed text): what the FocusPledge Runner target gives every file. Module-wide
// imports (`@_exported` makes an import visible in every file of this module, as a bridging
// header and the target's linked frameworks do). Foundation comes through the Screen Time modules,
// as Apple's re-export it, with the `UserDefaults` app code gets (AppGroupFoundation): the seed's
// `UserDefaults(suiteName:)` is the App Group store with no alias (EMULATED-IOS.md §7.11).
@_exported import AppGroup
@_exported import DeviceActivity
@_exported import FamilyControls
@_exported import ManagedSettings
@_exported import SeedPlatform

