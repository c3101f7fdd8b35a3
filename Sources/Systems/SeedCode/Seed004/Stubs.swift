import FamilyControls
import ManagedSettingsUI
import SeedSwiftUI

// App helpers and Apple views seed 004 uses but does not show.

/// Apple's `FamilyActivityPicker` (a SwiftUI view of FamilyControls). The harness picks through
/// the OS (`FamilyActivitySelection(pickedApplications:)`); the view itself shows nothing.
struct FamilyActivityPicker: View {
    @Binding var selection: FamilyActivitySelection

    init(selection: Binding<FamilyActivitySelection>) { _selection = selection }

    var body: some View { EmptyView() }
}

extension Seed004UnlockShield {
    /// "Return locked configuration": the app's own helper.
    func lockedConfiguration() -> ShieldConfiguration {
        ShieldConfiguration(title: ShieldConfiguration.Label(text: "Locked", color: .white))
    }
}

extension FileManager {
    /// Not Foundation API: the app's helper that sums the sizes under a directory.
    func sizeOfDirectory(at url: URL) throws -> Int {
        let keys: Set<URLResourceKey> = [.fileSizeKey]
        var total = 0
        guard let files = enumerator(at: url, includingPropertiesForKeys: Array(keys)) else { return 0 }
        for case let f as URL in files { total += (try? f.resourceValues(forKeys: keys).fileSize) ?? 0 }
        return total
    }
}

func reinitializeExtensions() {}
func cleanupOldData() {}
