// Preamble (not seed text): the imports of the Pushin Runner target. Foundation comes through
// ManagedSettings, as Apple's frameworks re-export it, so `UserDefaults` is the one an app gets
// (AppGroupFoundation): `.standard` is the process's own store, a `group.` suite the App Group.
@_exported import ManagedSettings
@_exported import SeedPlatform
@_exported import UserNotifications
