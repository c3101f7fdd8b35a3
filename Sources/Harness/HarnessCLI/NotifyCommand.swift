import AppGroup
import ArgumentParser
import Foundation
import Synchronization

/// `harness notify post|wait|state NAME`: macOS's `notifyutil` against a device root (a live run's,
/// or a kept one), so a person can poke the protocol by hand.
struct NotifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Post, wait for, or read a Darwin notification in a device root (like notifyutil).",
        discussion: "The device root must exist (a live run's: its run_started line says deviceRoot; or one kept with run --device-root).",
        subcommands: [Post.self, Wait.self, State.self])

    static func center(_ root: DeviceRootOptions) throws -> DarwinNotificationCenter {
        let path = try root.path(mustExist: true)
        return try DarwinNotificationCenter(deviceRoot: try DeviceRoot(path: path, create: false))
    }

    struct Post: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Post NAME (notifyutil -p): every observer gets a callback.")
        @OptionGroup var root: DeviceRootOptions
        @Argument(help: "The notification name.") var name: String
        @Option(parsing: .unconditional, help: "Post this many times (1...1000000).") var count = 1

        func run() throws {
            guard (1...1_000_000).contains(count) else { throw InputError("--count \(count): must be 1...1000000") }
            try NotifyName.validate(name)
            let center = try NotifyCommand.center(root)
            for _ in 0..<count { try center.post(name) }
            print("\(name) generation \(try center.generation(name))")
        }
    }

    struct Wait: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Wait for a post of NAME (notifyutil -w); exit 1 when none comes in time.",
            discussion: "Prints NAME and its generation for each callback (posts may coalesce into one).")
        @OptionGroup var root: DeviceRootOptions
        @Argument(help: "The notification name.") var name: String
        @Option(parsing: .unconditional, help: "Wall seconds to wait (0 < s <= 86400).") var timeout = 30.0
        @Option(parsing: .unconditional, help: "Callbacks to wait for (1...1000000).") var count = 1

        func run() throws {
            guard timeout > 0, timeout <= 86_400 else { throw InputError("--timeout \(timeout): must be more than 0 and at most 86400 seconds") }
            guard (1...1_000_000).contains(count) else { throw InputError("--count \(count): must be 1...1000000") }
            try NotifyName.validate(name)
            let center = try NotifyCommand.center(root)
            let sem = DispatchSemaphore(value: 0)
            // A callback can come between the last wait and `shutdown`: print only `count` of them.
            let printed = Mutex(0)
            try center.addObserver(name) { n in
                let mine = printed.withLock { p -> Bool in
                    guard p < count else { return false }
                    p += 1
                    return true
                }
                guard mine else { return }
                print("\(n) generation \(center.lastDelivered(n) ?? 0)")
                fflush(HarnessExit.standardOutputStream)
                sem.signal()
            }
            let deadline = DispatchTime.now() + timeout
            for got in 0..<count where sem.wait(timeout: deadline) == .timedOut {
                center.shutdown()
                HarnessExit.fail("no post of \(name) within \(timeout) s (\(got) of \(count) callback(s))")
                throw ExitCode(HarnessExit.violation)
            }
            center.shutdown()
        }
    }

    struct State: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print NAME's 64-bit state and generation (notifyutil -g), or set the state (-s).")
        @OptionGroup var root: DeviceRootOptions
        @Argument(help: "The notification name.") var name: String
        // Unconditional: `--set -1` reaches the check below instead of being read as an option.
        @Option(parsing: .unconditional, help: "Set the state to this unsigned 64-bit number (no post).") var set: String?

        func run() throws {
            try NotifyName.validate(name)
            var value: UInt64?
            if let set {
                guard let v = UInt64(set) else { throw InputError("--set \(Excerpt.quoted(set)): use an unsigned 64-bit number, 0...\(UInt64.max)") }
                value = v
            }
            let center = try NotifyCommand.center(root)
            if let value { try center.setState(name, value) }
            if case .corrupt(let reason) = try center.recordFile(name) {
                throw InputError("notify/\(name) is corrupt (\(Excerpt.inner(reason))): the processes read it as never posted until the next post or --set quarantines it")
            }
            print("\(name) state \(try center.state(name)) generation \(try center.generation(name))")
        }
    }
}
