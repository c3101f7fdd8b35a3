// Swift Testing on Linux ships a cross-import overlay declaration for UIKit
// (Testing.swiftcrossimport/UIKit.swiftoverlay names `_Testing_UIKit`) but no such module: a test
// file that imports Testing and, directly or through ManagedSettingsUI, a module named UIKit fails
// with "no such module '_Testing_UIKit'". This empty module is that overlay, so a team's tests of
// its shield configuration compile; UIKit depends on it, so it is built wherever UIKit is.
