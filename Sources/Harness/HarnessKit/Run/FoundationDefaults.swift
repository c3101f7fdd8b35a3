import AppGroup
import Foundation

/// App Group suites that app code opened through Linux Foundation's own `UserDefaults` instead of
/// the App Group's (a file that imports Foundation itself and names
/// `Foundation.UserDefaults(suiteName: "group.…")`): Foundation writes them as a private plist
/// under the process's $HOME — its sandbox (RunProcesses) — where no other process reads them. On
/// iOS the write would reach the group; here it silently would not, so the run says so and is
/// undecided (EMULATED-IOS.md §7.11): never a pass or a violation the app did not earn.
enum FoundationDefaults {
    /// The harness line (`RunJudgement` makes the run undecided).
    static let event = HarnessLine.foundationDefaults.rawValue
    /// Roles and files looked at, at most (a sandbox holds a handful).
    static let maxFiles = 1_000

    /// `(role, suite, path)` of every `sandboxes/<role>/.config/<suite>.plist` whose suite is an
    /// App Group identifier, sorted.
    static func found(deviceRoot: String) -> [(role: String, suite: String, path: String)] {
        let fm = FileManager.default
        var out: [(String, String, String)] = []
        let sandboxes = deviceRoot + "/sandboxes"
        for role in ((try? fm.contentsOfDirectory(atPath: sandboxes)) ?? []).sorted().prefix(maxFiles) {
            let config = sandboxes + "/" + role + "/.config"
            for file in ((try? fm.contentsOfDirectory(atPath: config)) ?? []).sorted().prefix(maxFiles)
            where file.hasPrefix("group.") && file.hasSuffix(".plist") {
                out.append((role, String(file.dropLast(".plist".count)), "sandboxes/\(role)/.config/\(file)"))
            }
        }
        return out
    }

    /// The reason a run with such a suite is undecided: what happened and what to change.
    static func reason(role: String, suite: String) -> String {
        "\(role) wrote App Group suite \(suite) through Linux Foundation's UserDefaults, which never reaches the App Group: "
            + "remove `import Foundation` from the file that opens it (the Screen Time modules re-export Foundation) so "
            + "`UserDefaults(suiteName:)` is the App Group's"
    }
}
