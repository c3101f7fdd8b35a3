// Apple's FamilyControls re-exports the token types its selection holds (ApplicationToken, …).
@_exported import ManagedSettings
@_exported import AppGroupFoundation
