// Apple's DeviceActivity re-exports the token types it takes (ApplicationToken, …).
@_exported import ManagedSettings
@_exported import AppGroupFoundation
