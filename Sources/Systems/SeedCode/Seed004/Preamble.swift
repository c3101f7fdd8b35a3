// Preamble (not seed text): what the Exit app's targets give every file: the Screen Time
// frameworks (with Foundation and the App Group's `UserDefaults`, EMULATED-IOS.md §7.11) and React
// Native's bridge types (the bridging header).
@_exported import AppGroup
@_exported import DeviceActivity
@_exported import FamilyControls
@_exported import ManagedSettings
@_exported import ManagedSettingsUI
@_exported import SeedReact

