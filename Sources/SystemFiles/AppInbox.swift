import AppGroup
import Foundation

/// What the user did inside a running app (tapped "start", picked apps, created a grant, …), as
/// the emulated OS hands it over: numbered JSON files in `system/inbox/<process>/`, then a post of
/// `system.inbox.<process>` (EMULATED-IOS.md §7). The meaning of `action` and its `fields` is the
/// pack's; the core only carries them.
///
///     {"action": "start_session", "fields": {"durationMinutes": "30", "sessionId": "s-1-2"}, "list": [], "seq": 3}
public struct AppMessage: Codable, Equatable, Sendable {
    public var seq: Int
    public var action: String
    public var fields: [String: String]
    /// A list argument (e.g. the apps picked in FamilyActivityPicker); empty when the action has none.
    public var list: [String]

    public init(seq: Int = 0, action: String, fields: [String: String] = [:], list: [String] = []) {
        self.seq = seq
        self.action = action
        self.fields = fields
        self.list = list
    }

    public subscript(_ key: String) -> String? { fields[key] }

    enum CodingKeys: String, CodingKey { case seq, action, fields, list }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        seq = try c.decode(Int.self, forKey: .seq)
        action = try c.decode(String.self, forKey: .action)
        fields = try c.decodeIfPresent([String: String].self, forKey: .fields) ?? [:]
        list = try c.decodeIfPresent([String].self, forKey: .list) ?? []
    }
}

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
        self.directory = try deviceRoot.subdirectory(EmulatedOSPaths.inbox(process))
        self.center = center
    }

    static func fileName(_ seq: Int) -> String { String(format: "%010d.json", seq) }

    /// Harness side: deliver a message.
    public func send(_ m: AppMessage) throws {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys]
        try directory.writeAtomically(Self.fileName(m.seq), bytes: Array(try enc.encode(m)), fsync: false)
        try center.post(EmulatedOSPaths.inboxPosted(process))
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
