import PropertyList
import Foundation

/// A mode with a daily schedule: "Blocked apps are from the effective mode (schedule + overrides +
/// precedence)". The schedule is local wall-clock minutes; `startMinute == endMinute` is all day,
/// an end before the start wraps past midnight (as DeviceActivity's `DateComponents(hour:minute:)`).
public struct Mode: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var apps: [String]
    public var startMinute: Int
    public var endMinute: Int
    /// Higher wins when two modes are active at once.
    public var precedence: Int

    public init(id: String, name: String, apps: [String], startMinute: Int, endMinute: Int, precedence: Int) {
        self.id = id
        self.name = name
        self.apps = apps
        self.startMinute = startMinute
        self.endMinute = endMinute
        self.precedence = precedence
    }

    /// The mode the host's UI builds for "Enable a mode schedule for 'right now'": a daily
    /// schedule from the current local minute (plus `inMinutes`) lasting `lengthMinutes`.
    public static func starting(
        id: String, name: String, apps: [String], inMinutes: Int, lengthMinutes: Int, precedence: Int, now: Double, timeZone: TimeZone
    ) -> Mode {
        let start = (Rules.secondOfDay(now, timeZone) / 60 + inMinutes) % 1440
        return Mode(id: id, name: name, apps: apps, startMinute: start, endMinute: (start + lengthMinutes) % 1440, precedence: precedence)
    }

    /// True when local second-of-day `s` is inside the schedule: `[start, end)`.
    public func contains(secondOfDay s: Int) -> Bool {
        let a = startMinute * 60, b = endMinute * 60
        if a == b { return true }
        return a < b ? (s >= a && s < b) : (s >= a || s < b)
    }
}

/// One row of `unlock_grant_current`: app X allowed until `endsTs` (device unix seconds).
public struct Grant: Codable, Sendable, Equatable {
    public var id: String
    public var app: String
    public var startTs: Double
    public var endsTs: Double

    public init(id: String, app: String, startTs: Double, endsTs: Double) {
        self.id = id
        self.app = app
        self.startTs = startTs
        self.endsTs = endsTs
    }

    /// "Active grants come from `unlock_grant_current` + ends_ts > now".
    public func isActive(at now: Double) -> Bool { endsTs > now && startTs <= now }
}

/// A user override of a mode (README A7): "turn mode M on (or off) now, for N minutes" — the
/// "overrides" of "the effective mode (schedule + overrides + precedence)". While it runs it beats
/// the mode's schedule; precedence still picks among the modes that are on. A mode has at most one
/// (the latest replaces the earlier); there is no cancel: it runs to `endsTs`.
public struct Override: Codable, Sendable, Equatable {
    public var id: String
    public var mode: String
    /// true: the mode is on while the override runs, whatever its schedule; false: off.
    public var on: Bool
    public var startTs: Double
    public var endsTs: Double

    public init(id: String, mode: String, on: Bool, startTs: Double, endsTs: Double) {
        self.id = id
        self.mode = mode
        self.on = on
        self.startTs = startTs
        self.endsTs = endsTs
    }

    /// Running from `startTs` until (not at) `endsTs`, as a grant.
    public func isActive(at now: Double) -> Bool { startTs <= now && now < endsTs }
}

/// The rules engine's state as the App Group holds it, and the spec's one formula.
public struct Rules: Sendable, Equatable {
    public var selection: [String]
    public var modes: [Mode]
    public var grants: [Grant]
    public var overrides: [Override]

    public init(selection: [String] = [], modes: [Mode] = [], grants: [Grant] = [], overrides: [Override] = []) {
        self.selection = selection
        self.modes = modes
        self.grants = grants
        self.overrides = overrides
    }

    /// Reads the App Group snapshot; a missing or unreadable key reads as empty (what the
    /// extensions would see: nothing selected, no mode, no grant).
    public init(store: [String: PropertyListValue]) {
        func decode<T: Decodable>(_ key: String, as: T.Type) -> T? {
            guard case .data(let d)? = store[key] else { return nil }
            return try? JSONDecoder().decode(T.self, from: d)
        }
        selection = decode(EnforcementKeys.selection, as: [String].self) ?? []
        modes = decode(EnforcementKeys.modes, as: [Mode].self) ?? []
        grants = decode(EnforcementKeys.grants, as: [Grant].self) ?? []
        overrides = decode(EnforcementKeys.overrides, as: [Override].self) ?? []
    }

    public static func encode<T: Encodable>(_ value: T) -> PropertyListValue {
        let e = JSONEncoder()
        e.outputFormatting = .sortedKeys
        return .data((try? e.encode(value)) ?? Data())
    }

    /// The same JSON as text (for trace lines).
    public static func json<T: Encodable>(_ value: T) -> String {
        guard case .data(let d) = encode(value) else { return "" }
        return String(decoding: d, as: UTF8.self)
    }

    /// Local second of the day at `now` in `timeZone`.
    public static func secondOfDay(_ now: Double, _ timeZone: TimeZone) -> Int {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = timeZone
        let d = c.dateComponents([.hour, .minute, .second], from: Date(timeIntervalSince1970: now))
        return (d.hour ?? 0) * 3600 + (d.minute ?? 0) * 60 + (d.second ?? 0)
    }

    /// Is `mode` on at `now`: its running override says so, else its schedule (A7).
    public func isOn(_ mode: Mode, at now: Double, secondOfDay s: Int) -> Bool {
        if let o = overrides.last(where: { $0.mode == mode.id && $0.isActive(at: now) }) { return o.on }
        return mode.contains(secondOfDay: s)
    }

    /// The effective mode: of the modes on now (schedule + overrides), the highest precedence
    /// (then the smallest id, so the answer never depends on order).
    public func effectiveMode(at now: Double, timeZone: TimeZone) -> Mode? {
        let s = Self.secondOfDay(now, timeZone)
        return modes.filter { isOn($0, at: now, secondOfDay: s) }.max { ($0.precedence, $1.id) < ($1.precedence, $0.id) }
    }

    /// `blockedAppsByEffectiveMode`: the effective mode's apps that are selected.
    public func blockedApps(at now: Double, timeZone: TimeZone) -> [String] {
        guard let m = effectiveMode(at: now, timeZone: timeZone) else { return [] }
        return m.apps.filter { selection.contains($0) }.sorted()
    }

    /// `appsWithActiveGrant`.
    public func grantedApps(at now: Double) -> Set<String> { Set(grants.filter { $0.isActive(at: now) }.map(\.app)) }

    /// `shieldedApps = blockedAppsByEffectiveMode - appsWithActiveGrant`, sorted.
    public func shieldedApps(at now: Double, timeZone: TimeZone) -> [String] {
        let granted = grantedApps(at: now)
        return blockedApps(at: now, timeZone: timeZone).filter { !granted.contains($0) }
    }

    /// The one grant row per app after a new grant: "unlock_grant_current" keeps the current one.
    public func replacingGrant(_ g: Grant) -> [Grant] { grants.filter { $0.app != g.app } + [g] }

    /// The one override per mode after a new one: the latest replaces the mode's earlier one (A7).
    public func replacingOverride(_ o: Override) -> [Override] { overrides.filter { $0.mode != o.mode } + [o] }
}
