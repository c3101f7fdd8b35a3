import AppGroup
import Foundation
import ScreenTimeModel

/// A process's inbox of `AppMessage`s (ScreenTimeModel): written by the emulated OS, taken by the
/// app's run loop.
public final class AppInbox: @unchecked Sendable {
    public let process: String
    let directory: SafeDirectory
    let center: DarwinNotificationCenter
    /// Files taken per call (bounded work per wake).
    public static let maxPerTake = 64
    /// A message is a tap, not a payload.
    public static let maxMessageBytes = 1 << 16

    public init(process: String, deviceRoot: DeviceRoot, center: DarwinNotificationCenter) throws {
        self.process = process
        self.directory = try deviceRoot.subdirectory(OSPaths.inbox(process))
        self.center = center
    }

    static func fileName(_ seq: Int) -> String { String(format: "%010d.json", seq) }

    /// Harness side: deliver a message.
    public func send(_ m: AppMessage) throws {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys]
        try directory.writeAtomically(Self.fileName(m.seq), bytes: Array(try enc.encode(m)), fsync: false)
        try center.post(OSPaths.inboxPosted(process))
    }

    /// Harness side: whether message `seq` is still in the inbox (the app has not taken it yet).
    public func holds(_ seq: Int) -> Bool { (try? directory.statEntry(Self.fileName(seq))) != nil }

    /// App side: removes and returns pending messages in order. Malformed files are removed and
    /// reported through `onMalformed` (never acted on, never a crash).
    public func take(onMalformed: (String) -> Void = { _ in }) -> [AppMessage] {
        let names = ((try? directory.entries(limit: 10_000)) ?? []).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted().prefix(Self.maxPerTake)
        var out: [AppMessage] = []
        for n in names {
            let bytes = try? directory.readFile(n, limitBytes: Self.maxMessageBytes)
            directory.remove(n)
            guard let bytes, let m = try? JSONDecoder().decode(AppMessage.self, from: Data(bytes)) else {
                onMalformed(n)
                continue
            }
            out.append(m)
        }
        return out
    }
}
