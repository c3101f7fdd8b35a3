import PropertyList
import Foundation
import SystemKit

/// The host app (the Expo app's native side: the local-first rules engine and its iOS
/// enforcement module), a pure state machine. Seed 001 has no code: as-written does what its text
/// says and nothing else (README "Assumptions"); hardened fixes each finding (H1…).
public struct EnforcementHost: Sendable {
    public typealias Snapshot = [String: PropertyListValue]

    public enum Event: Sendable, Equatable {
        /// The process started.
        case launched(now: Double, timeZone: TimeZone, store: Snapshot)
        /// The app came to the foreground.
        case becameActive(now: Double, timeZone: TimeZone, store: Snapshot)
        /// "Select 1–2 apps in picker".
        case selectApps([String])
        /// "Enable a mode schedule": the mode as the user set it up.
        case enableMode(Mode, now: Double, timeZone: TimeZone, store: Snapshot)
        /// "create 5‑minute unlock grant" (any length).
        case createGrant(app: String, minutes: Int, now: Double, timeZone: TimeZone, store: Snapshot)
        /// The user turns a mode on (or off) now for `minutes` (README A7: "overrides").
        case setOverride(mode: String, on: Bool, minutes: Int, now: Double, timeZone: TimeZone, store: Snapshot)
        /// The mirror timer: copy the App Group's selection into SQLite (the adapter writes it).
        case mirrorDue
        /// The adapter's write of the mirror failed (an I/O error: a full disk, a locked file).
        case mirrorFailed
        /// The adapter's write of the mirror landed.
        case mirrored
    }

    public let variant: EnforcementVariant
    /// Set by `handle` when the adapter is to write the App Group's selection into the SQLite
    /// mirror now (the machine is pure; the database is the shell's).
    public private(set) var mirrorRequested = false

    /// The timer after which the selection is mirrored (0 s: after the App Group write landed).
    public static let mirrorTimer = "mirror"
    /// Hardened (H10): failed mirror writes retried so far since the last that landed.
    public private(set) var mirrorRetries = 0
    /// H10: how many times a failed mirror write is retried (1, 2, 4, 8, 16 s after it: inside the
    /// 10 s an app keeps running after the user leaves it, and a little past) before the host waits
    /// for its next foreground, launch (H3) or selection.
    public static let maxMirrorRetries = 5
    /// Apple: "The minimum interval length for monitoring device activity is fifteen minutes."
    public static let minimumIntervalSeconds = 15.0 * 60

    public init(variant: EnforcementVariant) { self.variant = variant }

    public mutating func handle(_ event: Event) -> [Effect] {
        mirrorRequested = false
        switch event {
        case .launched(let now, let tz, let store):
            // As-written: the spec lists no launch work (its fallback is "app foreground", which
            // follows). Hardened (H3): the SQLite mirror is brought back in line with the App Group
            // at every launch — a kill between the selection's write and its mirror is repaired.
            guard variant == .hardened else { return [] }
            // H4: a host killed between a grant's write and its one-off schedule left no re-shield
            // scheduled: every grant still running gets its schedule again (same name: replaced).
            let rules = Rules(store: store)
            let running = rules.grants.filter { $0.endsTs > now }.sorted { $0.app < $1.app }
            // H6: likewise a mode whose write landed but whose daily schedule was never registered
            // would never toggle at its boundaries: every mode's schedule is registered again.
            // H7: and every override still running gets its end's schedule again (F4's lesson).
            let overrides = rules.overrides.filter { $0.endsTs > now }.sorted { $0.mode < $1.mode }
            return [.startTimer(Self.mirrorTimer, .after(seconds: 0))] + reconcile(now: now, timeZone: tz, store: store, why: "launch")
                + rules.modes.sorted { $0.id < $1.id }.flatMap { Self.modeSchedules($0, variant: .hardened) }
                + running.map { Self.hardenedGrantSchedule(app: $0.app, start: now.rounded(.down), ends: $0.endsTs, timeZone: tz) }
                + overrides.map { Self.overrideEndSchedule(mode: $0.mode, start: now.rounded(.down), ends: $0.endsTs, timeZone: tz) }
        case .becameActive(let now, let tz, let store):
            // "Ensure shields are reconciled on: app foreground". Hardened (H10): a mirror whose
            // last write failed is written again.
            if variant == .hardened && mirrorRetries > 0 { mirrorRequested = true }
            return reconcile(now: now, timeZone: tz, store: store, why: "foreground")
        case .selectApps(let apps):
            // "Store selection data under App Group container (native)" then "Mirror 'selected app
            // ids' into your SQLite" (after the App Group write landed: the mirror timer).
            let ids = Array(Set(apps)).sorted()
            return [
                .setDefaults([.set(EnforcementKeys.selection, Rules.encode(ids))], atomic: true),
                .trace("selection_saved", ["apps": ids.joined(separator: ",")]),
                .startTimer(Self.mirrorTimer, .after(seconds: 0)),
            ]
        case .enableMode(let mode, let now, let tz, let store):
            return enableMode(mode, now: now, timeZone: tz, store: store)
        case .createGrant(let app, let minutes, let now, let tz, let store):
            return createGrant(app: app, minutes: minutes, now: now, timeZone: tz, store: store)
        case .setOverride(let mode, let on, let minutes, let now, let tz, let store):
            return setOverride(mode: mode, on: on, minutes: minutes, now: now, timeZone: tz, store: store)
        case .mirrorDue:
            mirrorRequested = true
            return []
        case .mirrorFailed:
            // As-written: the spec says nothing of a failed write; the next selection mirrors again.
            // Hardened (H10): retried on a timer, twice as late each time, a bounded number of times.
            guard variant == .hardened, mirrorRetries < Self.maxMirrorRetries else { return [] }
            mirrorRetries += 1
            let delay = 1 << (mirrorRetries - 1)
            return [
                .trace("mirror_retry_scheduled", ["attempt": String(mirrorRetries), "inSeconds": String(delay)]),
                .startTimer(Self.mirrorTimer, .after(seconds: Double(delay))),
            ]
        case .mirrored:
            mirrorRetries = 0
            return []
        }
    }

    /// "When a mode becomes active (or overrides change), update
    /// `ManagedSettingsStore.shield.applications` with `shieldedApps`"; the monitor toggles the
    /// shields at the mode's schedule boundaries (its repeating daily schedule).
    mutating func enableMode(_ mode: Mode, now: Double, timeZone: TimeZone, store: Snapshot) -> [Effect] {
        var rules = Rules(store: store)
        rules.modes = rules.modes.filter { $0.id != mode.id } + [mode]
        return [
            .setDefaults([.set(EnforcementKeys.modes, Rules.encode(rules.modes))], atomic: true),
            .trace("mode_enabled", [
                "mode": mode.id, "name": mode.name, "apps": mode.apps.sorted().joined(separator: ","),
                "startMinute": String(mode.startMinute), "endMinute": String(mode.endMinute), "precedence": String(mode.precedence),
                // The whole list as written (the checker's copy of the App Group's rules).
                "modes": Rules.json(rules.modes),
            ]),
        ] + Self.reconcile(rules, now: now, timeZone: timeZone, why: "mode")
            + Self.modeSchedules(mode, variant: variant)
    }

    /// A mode's schedules: its repeating daily one; hardened (H8) a second one a minute behind it
    /// (`mode.<id>.again`), so a boundary whose callback iOS loses is reconciled a minute later
    /// by the other's — as H5 gives a grant's end a second chance. Two activities per mode stay
    /// far below the 20-activity limit (a workload has two modes at most).
    static func modeSchedules(_ mode: Mode, variant: EnforcementVariant) -> [Effect] {
        guard variant == .hardened else { return [modeSchedule(mode)] }
        let behind = { (minute: Int) in (minute + Int(secondChanceSeconds / 60)) % (24 * 60) }
        var again = mode
        again.startMinute = behind(mode.startMinute)
        again.endMinute = behind(mode.endMinute)
        return [modeSchedule(mode), modeSchedule(again, activity: EnforcementKeys.modeSecondChanceActivity(mode.id))]
    }

    /// A mode's repeating daily schedule (`DateComponents(hour:minute:)`).
    static func modeSchedule(_ mode: Mode, activity: String? = nil) -> Effect {
        let schedule = MonitoringSchedule(
            intervalStart: DateComponents(hour: mode.startMinute / 60, minute: mode.startMinute % 60),
            intervalEnd: DateComponents(hour: mode.endMinute / 60, minute: mode.endMinute % 60), repeats: true)
        return .startMonitoringSchedule(activity: activity ?? EnforcementKeys.modeActivity(mode.id), schedule: schedule, events: [:])
    }

    /// "When a grant is created for app X: remove X from shields (allow it); schedule a re-shield
    /// at `grant_end_ts`" — "Use `DeviceActivityCenter.startMonitoring` with a schedule that ends
    /// at the grant expiration time" with `repeats: false`.
    mutating func createGrant(app: String, minutes: Int, now: Double, timeZone: TimeZone, store: Snapshot) -> [Effect] {
        let start = now.rounded(.down)
        let ends = (now + Double(minutes) * 60).rounded(.up)
        let grant = Grant(id: "\(Int(start))-\(app)", app: app, startTs: now, endsTs: ends)
        var rules = Rules(store: store)
        rules.grants = rules.replacingGrant(grant)
        var out: [Effect] = [
            .setDefaults([.set(EnforcementKeys.grants, Rules.encode(rules.grants))], atomic: true),
            .trace("grant_created", [
                "grant": grant.id, "app": app, "minutes": String(minutes), "ends": String(ends), "grants": Rules.json(rules.grants),
            ]),
        ]
        out += Self.reconcile(rules, now: now, timeZone: timeZone, why: "grant")
        switch variant {
        case .asWritten:
            // The one-off schedule exactly as recommended: now → the grant's end, no warning.
            // Apple refuses one shorter than 15 minutes (intervalTooShort): then no callback comes.
            out.append(.startMonitoring(activity: EnforcementKeys.grantActivity(grant.id), start: Date(timeIntervalSince1970: start),
                end: Date(timeIntervalSince1970: ends), repeats: false))
        case .hardened:
            out.append(Self.hardenedGrantSchedule(app: app, start: start, ends: ends, timeZone: timeZone))
        }
        return out
    }

    /// "When a mode becomes active (or overrides change), update
    /// `ManagedSettingsStore.shield.applications` with `shieldedApps`": the override is written
    /// (one atomic write, where the extensions read it), then the shields at once. As-written
    /// stops there — the spec schedules nothing at the override's end, so an end that falls while
    /// the host is in the background waits for a fallback trigger. Hardened (H7): a one-off
    /// schedule per mode whose warning falls on the override's end, as H1 does for a grant.
    mutating func setOverride(mode: String, on: Bool, minutes: Int, now: Double, timeZone: TimeZone, store: Snapshot) -> [Effect] {
        let start = now.rounded(.down)
        let ends = (now + Double(minutes) * 60).rounded(.up)
        let o = Override(id: "\(Int(start))-\(mode)", mode: mode, on: on, startTs: now, endsTs: ends)
        var rules = Rules(store: store)
        rules.overrides = rules.replacingOverride(o)
        var out: [Effect] = [
            .setDefaults([.set(EnforcementKeys.overrides, Rules.encode(rules.overrides))], atomic: true),
            .trace("override_set", [
                "override": o.id, "mode": mode, "state": on ? "on" : "off", "minutes": String(minutes), "ends": String(ends),
                "overrides": Rules.json(rules.overrides),
            ]),
        ]
        out += Self.reconcile(rules, now: now, timeZone: timeZone, why: "override")
        if variant == .hardened { out.append(Self.overrideEndSchedule(mode: mode, start: start, ends: ends, timeZone: timeZone)) }
        return out
    }

    /// H7: the override's end as a grant's (H1 + H5: at least 15 minutes, the warning on the end,
    /// the interval a minute past it), one activity per mode (H2: a new override of the mode
    /// replaces it, so they never pile up to the 20-activity limit).
    static func overrideEndSchedule(mode: String, start now: Double, ends: Double, timeZone: TimeZone) -> Effect {
        oneOffSchedule(activity: EnforcementKeys.overrideActivity(mode), start: now, ends: ends, timeZone: timeZone)
    }

    /// H1: an interval of at least 15 minutes with a `warningTime`, so `intervalWillEndWarning`
    /// falls on the grant's end (Apple's own advice with `intervalTooShort`: "Consider using the
    /// warningTime property of the schedule instead"). H5: the interval itself ends a minute after
    /// the grant — a second chance when iOS loses the warning — and so starts up to 15 minutes
    /// before it (already running at registration, which iOS allows: `intervalDidStart` comes at
    /// once). H2: one activity per app (re-registering replaces it), so ended grants never pile
    /// up to the 20-activity limit.
    static func hardenedGrantSchedule(app: String, start now: Double, ends: Double, timeZone: TimeZone) -> Effect {
        oneOffSchedule(activity: EnforcementKeys.grantActivity(app), start: now, ends: ends, timeZone: timeZone)
    }

    /// The one-off schedule of H1 + H5 for anything that ends at `ends` (a grant, an override).
    static func oneOffSchedule(activity: String, start now: Double, ends: Double, timeZone: TimeZone) -> Effect {
        let end = ends + secondChanceSeconds
        let start = min(now, end - minimumIntervalSeconds)
        var c = Calendar(identifier: .gregorian)
        c.timeZone = timeZone
        // H9: the components carry the time zone they were made in, so the schedule stays on its
        // instant when the device changes zone (matched in the device's zone, a grant's end moved
        // with local time: 30 minutes later flying from Kolkata to Karachi).
        func components(_ t: Double) -> DateComponents {
            var d = c.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: t))
            d.timeZone = timeZone
            return d
        }
        let warning = Int(secondChanceSeconds)
        let schedule = MonitoringSchedule(
            intervalStart: components(start), intervalEnd: components(end), repeats: false,
            // Each field in its calendar range (the emulated iOS refuses `second: 600`).
            warningTime: DateComponents(hour: warning / 3600, minute: warning % 3600 / 60, second: warning % 60))
        return .startMonitoringSchedule(activity: activity, schedule: schedule, events: [:])
    }

    /// H5: how long after a grant's end its interval ends (the second chance).
    public static let secondChanceSeconds = 60.0

    func reconcile(now: Double, timeZone: TimeZone, store: Snapshot, why: String) -> [Effect] {
        Self.reconcile(Rules(store: store), now: now, timeZone: timeZone, why: why)
    }

    /// `shieldedApps` computed now and written to the default `ManagedSettingsStore` (every
    /// process that reconciles does this one thing).
    public static func reconcile(_ rules: Rules, now: Double, timeZone: TimeZone, why: String) -> [Effect] {
        let apps = rules.shieldedApps(at: now, timeZone: timeZone)
        let mode = rules.effectiveMode(at: now, timeZone: timeZone)
        return [
            .trace("reconcile", ["why": why, "apps": apps.joined(separator: ","), "mode": mode?.id ?? ""]),
            .setShield(ShieldWrite(applications: .set(apps))),
        ]
    }
}
