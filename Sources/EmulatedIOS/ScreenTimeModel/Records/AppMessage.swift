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
