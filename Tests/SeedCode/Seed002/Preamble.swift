// Preamble (not seed text): the imports of the Pushin Runner target. Seed 002 never opens an
// App Group suite itself (its `store` comes from code it does not show), so `UserDefaults` stays
// Foundation's here; the seed's `UserDefaults.standard` fallback needs it.
@_exported import Foundation
@_exported import ManagedSettings
@_exported import SeedPlatform
@_exported import UserNotifications
