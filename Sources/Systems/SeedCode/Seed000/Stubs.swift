import FamilyControls
import SeedSwiftUI

// App helpers seed 000 uses but does not show.

/// `presentAppPicker` shows "FamilyActivityPickerView { selection in … }": the app's own SwiftUI
/// view around Apple's FamilyActivityPicker, calling back with the selection.
struct FamilyActivityPickerView: View {
    let onSelect: (FamilyActivitySelection) -> Void

    init(_ onSelect: @escaping (FamilyActivitySelection) -> Void) { self.onSelect = onSelect }

    var body: some View { Text("Select apps") }
}

/// `startNativeSession` reads `startTime.hour` and `endTime.minute`: an extension on Date the
/// seed does not show; the device's calendar and time zone.
extension Date {
    var hour: Int { Calendar.current.component(.hour, from: self) }
    var minute: Int { Calendar.current.component(.minute, from: self) }
}
