// Apple's ManagedSettings re-exports Foundation; here through AppGroupFoundation, whose `UserDefaults`
// reaches the App Group (EMULATED-IOS.md §7.11).
@_exported import AppGroupFoundation
