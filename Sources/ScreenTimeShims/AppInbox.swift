import AppGroup
import Foundation

/// How the emulated OS hands a running app what the user did (tapped "start", picked apps...):
/// numbered JSON files in `system/inbox/<process>/`, then a post of `system.inbox.<process>`.
/// The app takes each file (deletes it, then acts: a tap is delivered at most once) in order.
public struct InboxMessage: Codable, Equatable, Sendable {
    public var seq: Int
    public var action: String
    public var sessionId: String?
    public var durationMinutes: Int?
    public var apps: [String]?

    public init(seq: Int, action: String, sessionId: String? = nil, durationMinutes: Int? = nil, apps: [String]? = nil) {
        self.seq = seq
        self.action = action
        self.sessionId = sessionId
        self.durationMinutes = durationMinutes
        self.apps = apps
    }
}

public final class AppInbox: @unchecked Sendable {
    public let process: String
    let directory: SafeDirectory
    let center: DarwinNotificationCenter
    /// Files taken per call (bounded work per wake).
    public static let maxPerTake = 64

    public init(process: String, deviceRoot: DeviceRoot, center: DarwinNotificationCenter) throws {
        self.process = process
        self.directory = try deviceRoot.subdirectory(EmulatedOSPaths.inbox(process))
        self.center = center
    }

    static func fileName(_ seq: Int) -> String { String(format: "%010d.json", seq) }

    /// Harness side: deliver a message.
    public func send(_ m: InboxMessage) throws {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys]
        try directory.writeAtomically(Self.fileName(m.seq), bytes: Array(try enc.encode(m)), fsync: false)
        try center.post(EmulatedOSPaths.inboxPosted(process))
    }

    /// App side: removes and returns pending messages in order. Malformed files are removed and
    /// reported through `onMalformed` (never acted on, never a crash).
    public func take(onMalformed: (String) -> Void = { _ in }) -> [InboxMessage] {
        let names = ((try? directory.entries(limit: 10_000)) ?? []).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted().prefix(Self.maxPerTake)
        var out: [InboxMessage] = []
        for n in names {
            let bytes = try? directory.readFile(n, limitBytes: 1 << 16)
            directory.remove(n)
            guard let bytes, let m = try? JSONDecoder().decode(InboxMessage.self, from: Data(bytes)) else {
                onMalformed(n)
                continue
            }
            out.append(m)
        }
        return out
    }
}
