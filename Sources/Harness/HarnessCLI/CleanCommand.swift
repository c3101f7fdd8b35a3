import ArgumentParser
import Foundation
import HarnessKit

/// `harness clean`: removes the device roots of harnesses that died (SIGKILL, a crash, a lost
/// machine session); `harness run` does the same when it starts. A live run's root is leased by its
/// harness (DeviceRootLease) and never touched.
struct CleanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Remove device roots left by harnesses that died (harness run also does this when it starts).")

    @Flag(help: "Print the removed paths.") var verbose = false

    func run() throws {
        let dir = DeviceRootLease.managedRunsDirectory
        let removed = DeviceRootLease.sweep(runsDirectory: dir)
        print("removed \(removed.count) dead device root(s) under \(dir)")
        if verbose { for p in removed { print("  \(p)") } }
    }
}
