// Preamble (not seed text): what the FocusPledge Runner target gives every file. Module-wide
// imports (`@_exported` makes an import visible in every file of this module, as a bridging
// header and the target's linked frameworks do), and `UserDefaults` is the App Group store
// (SharedDefaults has UserDefaults' `init?(suiteName:)` and method names, PROTOCOL.md §3).
@_exported import AppGroup
@_exported import DeviceActivity
@_exported import FamilyControls
@_exported import Foundation
@_exported import ManagedSettings
@_exported import SeedPlatform

typealias UserDefaults = SharedDefaults
