// Preamble (not seed text): what the Until app's targets give every file: the Screen Time
// frameworks, React Native's bridge types (the bridging header), CoreFoundation's Darwin notify
// center (Foundation re-exports CoreFoundation on iOS). `UserDefaults` is the Screen Time modules'
// (AppGroupFoundation): the seed's `UserDefaults(suiteName:)` reaches the App Group with no alias.
@_exported import AppGroup
@_exported import CFDarwinNotify
@_exported import DeviceActivity
@_exported import FamilyControls
@_exported import Foundation
@_exported import ManagedSettings
@_exported import SeedReact

