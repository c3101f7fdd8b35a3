import PropertyList
import Foundation
import SystemKit

/// The host app (React Native + the `AppGroupStorage` native module, seed 004 §3–§7), a pure state
/// machine: events carry device time, the local day and the App Group snapshot; effects out.
///
/// As-written follows the seed's lines (quoted below); where the seed shows nothing (who shields
/// the selected apps, when the heartbeat is checked, how midnight is noticed) the pack's README
/// names the assumption (A1…). Hardened fixes each as-written finding (H1…).
public struct ExitHost: Sendable {
    public typealias Snapshot = [String: PropertyListValue]

    public enum Event: Sendable, Equatable {
        /// The process started. `privateStore`: its own store (MMKV / `UserDefaults.standard`).
        case launched(now: Double, day: String, store: Snapshot, privateStore: Snapshot)
        /// `AppState` `active`.
        case becameActive(now: Double, day: String, store: Snapshot)
        /// `AppState` `background`.
        case enteredBackground
        /// The polling interval fired (§3.2, §7.1).
        case pollTick(now: Double, day: String, store: Snapshot)
        /// `significantTimeChangeNotification`: midnight, a time-zone change (A5).
        case significantTimeChange(now: Double, day: String, store: Snapshot)
        /// The user picked the apps to monitor (§5.2).
        case selectApps([String])
        /// The user finished the breathing exercise (§3.3 "after breathing complete").
        case breathingDone(now: Double, day: String, store: Snapshot)
        /// The user left the exercise unfinished.
        case breathingAbandoned(now: Double, day: String, store: Snapshot)
    }

    public let variant: ExitVariant
    /// The intervention screen on display (`router.push('/intervention?app=…')`): memory only.
    public private(set) var onScreen: String?
    /// Hardened: the last local day the daily counters were reset for (kept in the private store).
    public private(set) var lastResetDay: String?
    /// Hardened: when the current unlock ends and the shields go back (kept in the private store).
    public private(set) var unlockedUntil: Double?
    /// Hardened: the last request (`blocked_app` value) served (kept in the private store).
    public private(set) var servedRequest: String?

    public static let pollTimer = "poll"
    /// The private store's keys (hardened).
    public enum PrivateKeys {
        public static let pendingApp = "pending_intervention_app"
        public static let pendingSince = "pending_intervention_since"
        public static let lastResetDay = "last_reset_day"
        /// H10: the day whose reset is being written (set before the App Group write, removed after).
        public static let resetPending = "reset_pending_day"
        public static let unlockedUntil = "unlocked_until"
        public static let servedRequest = "served_request"
    }

    public init(variant: ExitVariant) { self.variant = variant }

    public mutating func handle(_ event: Event) -> [Effect] {
        switch event {
        case .launched(let now, let day, let store, let privateStore):
            return launched(now: now, day: day, store: store, privateStore: privateStore)
        case .becameActive(let now, let day, let store):
            // §7.1: "} else if (nextState === 'active') { // Reset to 1 second".
            var out = [Effect.startTimer(Self.pollTimer, .every(seconds: ExitKeys.foregroundPollSeconds))]
            if variant == .hardened { return out + dayCheck(now: now, day: day, store: store) + poll(now: now, day: day, store: store) }
            // §6.1 "Main App (check)", each time the app comes to the foreground (A4).
            out += heartbeatCheck(now: now, store: store)
            return out
        case .enteredBackground:
            // §7.1: "if (nextState === 'background') { // Increase polling interval to 5 seconds".
            return [.startTimer(Self.pollTimer, .every(seconds: ExitKeys.backgroundPollSeconds))]
        case .pollTick(let now, let day, let store):
            return (variant == .hardened ? dayCheck(now: now, day: day, store: store) : []) + poll(now: now, day: day, store: store)
        case .significantTimeChange(let now, let day, let store):
            // As-written: the notice is the midnight (A5); hardened: a new local day is (H4).
            return variant == .hardened ? dayCheck(now: now, day: day, store: store) : dailyReset(day: day, atomic: false)
        case .selectApps(let apps):
            return selectApps(apps)
        case .breathingDone(let now, let day, let store):
            return breathingDone(now: now, day: day, store: store)
        case .breathingAbandoned(let now, let day, _):
            guard let app = onScreen else { return [.trace("breathing_without_intervention", ["outcome": "abandoned"])] }
            onScreen = nil
            var out: [Effect] = []
            if variant == .hardened {
                out.append(.setPrivateDefaults([.remove(PrivateKeys.pendingApp), .remove(PrivateKeys.pendingSince)], atomic: true))
            }
            out.append(.trace("intervention_finished", ["outcome": "abandoned", "app": app, "day": day, "at": String(now)]))
            return out
        }
    }

    // MARK: Launch

    mutating func launched(now: Double, day: String, store: Snapshot, privateStore: Snapshot) -> [Effect] {
        // §3.2: `useEffect(() => { const pollInterval = setInterval(async () => {…}, 1000)`.
        var out = [Effect.startTimer(Self.pollTimer, .every(seconds: ExitKeys.foregroundPollSeconds))]
        guard variant == .hardened else { return out }
        lastResetDay = privateStore[PrivateKeys.lastResetDay]?.stringValue
        unlockedUntil = privateStore[PrivateKeys.unlockedUntil]?.doubleValue
        servedRequest = privateStore[PrivateKeys.servedRequest]?.stringValue
        if let pending = privateStore[PrivateKeys.resetPending]?.stringValue {
            // H10: killed inside a reset. The flag was false before it (cleared first) and only a reset
            // sets it: true means the App Group write landed — record it, do not reset again (a monitor
            // update that landed since would be erased); false means it did not — the day check redoes it.
            if store[ExitKeys.dailyResetFlag]?.boolValue == true {
                lastResetDay = pending
                out.append(.setPrivateDefaults([.set(PrivateKeys.lastResetDay, .string(pending)), .remove(PrivateKeys.resetPending)], atomic: true))
            }
        }
        if lastResetDay == nil {
            // First launch: today's counters start here; nothing to reset.
            lastResetDay = day
            out.append(.setPrivateDefaults([.set(PrivateKeys.lastResetDay, .string(day))], atomic: true))
        }
        out += dayCheck(now: now, day: day, store: store)
        // H5: the monitor's registration again (idempotent) instead of a heartbeat guess.
        if let apps = Self.monitoredApps(store), !apps.isEmpty { out.append(Self.registerDaily()) }
        // H2: an intervention the user had not finished when the process died is shown again — unless its
        // unlock had already landed (killed after the write): then finish it, pending record too (once).
        if let app = privateStore[PrivateKeys.pendingApp]?.stringValue {
            let since = privateStore[PrivateKeys.pendingSince]?.doubleValue ?? 0
            if let u = store[ExitKeys.unlockTimestamp]?.doubleValue, u >= since {
                out += unlockAftermath(unlock: u, now: now, store: store) + [.setPrivateDefaults([.remove(PrivateKeys.pendingApp), .remove(PrivateKeys.pendingSince)], atomic: true)]
                out.append(.trace("intervention_finished", ["outcome": "completed", "app": app, "day": day, "at": String(u), "recovered": "true"]))
            } else {
                onScreen = app
                out.append(.trace("intervention_shown", ["app": app, "resumed": "true"]))
            }
        }
        out += reshieldIfDue(now: now, store: store)
        return out
    }

    // MARK: Polling (§3.2)

    mutating func poll(now: Double, day: String, store: Snapshot) -> [Effect] {
        var out: [Effect] = []
        // §2.1 `daily_reset_flag` "Signals midnight rollover occurred", read by the Main App: seen, cleared.
        if store[ExitKeys.dailyResetFlag]?.boolValue == true {
            out.append(.setDefaults([.set(ExitKeys.dailyResetFlag, .bool(false))], atomic: false))
        }
        if variant == .hardened { out += reshieldIfDue(now: now, store: store) }
        // `const requested = await AppGroupStorage.getBool('intervention_requested'); if (requested) {`
        guard store[ExitKeys.interventionRequested]?.boolValue == true else { return out }
        // `const blockedApp = await AppGroupStorage.getString('blocked_app');` (getString: `?? ""`)
        let blocked = store[ExitKeys.blockedApp]?.stringValue ?? ""
        if variant == .hardened {
            // H7: the registry gives both keys to the ShieldAction alone: the host never clears the
            // flag; each tap writes a new `blocked_app` (its token and time), and the host serves
            // each value once. H2: the request is kept in the private store before it is shown.
            guard blocked != servedRequest else { return out }
            servedRequest = blocked
            out.append(.setPrivateDefaults([
                .set(PrivateKeys.pendingApp, .string(blocked)), .set(PrivateKeys.pendingSince, .real(now)),
                .set(PrivateKeys.servedRequest, .string(blocked)),
            ], atomic: true))
        } else {
            // `await AppGroupStorage.setBool('intervention_requested', false);`
            out.append(.setDefaults([.set(ExitKeys.interventionRequested, .bool(false))], atomic: false))
        }
        // `router.push(`/intervention?app=${blockedApp}`);`
        onScreen = blocked
        out.append(.trace("intervention_shown", ["app": blocked]))
        return out
    }

    // MARK: The exercise's end (§3.3)

    mutating func breathingDone(now: Double, day: String, store: Snapshot) -> [Effect] {
        guard let app = onScreen else { return [.trace("breathing_without_intervention", ["outcome": "completed"])] }
        onScreen = nil
        var out: [Effect] = []
        if variant == .hardened { out += dayCheck(now: now, day: day, store: store) }
        // `last_intervention_count` "Today's completed interventions" (§2.1); after a reset in
        // this same step the count restarts at 0.
        let resetNow = out.contains { if case .trace("daily_reset", _) = $0 { return true } else { return false } }
        let before = resetNow ? 0 : Int(store[ExitKeys.lastInterventionCount]?.integerValue ?? 0)
        let count = before + 1
        let clarity = ExitLevel.clarity(completedToday: count)
        // §3.3: `let now = Date().timeIntervalSince1970; appGroup?.set(now, forKey: "unlock_timestamp")`,
        // then the Main App's own keys (§2.1): one `set` each (as-written), one write (hardened, H1).
        let writes: [DefaultsWrite] = [
            .set(ExitKeys.unlockTimestamp, .real(now)),
            .set(ExitKeys.lastInterventionCount, .integer(Int64(count))),
            .set(ExitKeys.clarityScore, .integer(Int64(clarity))),
            .set(ExitKeys.userLevel, .string(ExitLevel.level(clarity: clarity))),
        ]
        out.append(.setDefaults(writes, atomic: variant == .hardened))
        if variant == .hardened {
            out += unlockAftermath(unlock: now, now: now, store: store)
            out.append(.setPrivateDefaults([.remove(PrivateKeys.pendingApp), .remove(PrivateKeys.pendingSince)], atomic: true))
        }
        out.append(.trace("intervention_finished", ["outcome": "completed", "app": app, "day": day, "at": String(now), "count": String(count)]))
        return out
    }

    /// H3: the seed's unlock only changes the shield's text (§3.3); access needs the shield lifted
    /// (`ManagedSettingsStore`) and put back when the 60 s are over — by two one-shot DeviceActivity
    /// schedules ending then (the monitor re-shields; a host that runs does it too).
    mutating func unlockAftermath(unlock u: Double, now: Double, store: Snapshot) -> [Effect] {
        let until = u + ExitKeys.unlockWindowSeconds
        guard now < until else { return reshieldIfDue(now: now, store: store) }
        unlockedUntil = until
        var out: [Effect] = [.setPrivateDefaults([.set(PrivateKeys.unlockedUntil, .real(until))], atomic: true)]
        // Apple's minimum interval is 15 minutes: the schedules start in the past and end at the window's end.
        for (i, name) in ExitKeys.unlockActivities.enumerated() {
            // Whole seconds (Apple's schedules), at or just after the window's end.
            let end = until.rounded(.up) + Double(i)
            out.append(.startMonitoring(
                activity: name, start: Date(timeIntervalSince1970: end - 15 * 60), end: Date(timeIntervalSince1970: end), repeats: false))
        }
        out.append(.removeShields)
        return out
    }

    mutating func reshieldIfDue(now: Double, store: Snapshot) -> [Effect] {
        guard let until = unlockedUntil, now >= until else { return [] }
        unlockedUntil = nil
        return [
            .applyShields(Self.monitoredApps(store) ?? []),
            .setPrivateDefaults([.remove(PrivateKeys.unlockedUntil)], atomic: true),
        ]
    }

    // MARK: The daily reset (§2.1 `daily_reset_flag`)

    /// The reset of the daily keys: traced first (what the checker reads), then written — one `set`
    /// each as the native module does (as-written), or in one write (hardened).
    func dailyReset(day: String, atomic: Bool) -> [Effect] {
        [
            .trace("daily_reset", ["day": day]),
            .setDefaults(ExitKeys.dailyResetValues.map { .set($0.key, $0.value) }, atomic: atomic),
        ]
    }

    /// H4: reset once for each new local day, whatever told the app (midnight, a time-zone move, a
    /// launch the next morning); a day that comes again (flying west) is not new.
    /// H10: once even when killed inside it — the day is marked pending in the private store and the
    /// flag cleared before the App Group write, so a relaunch can tell from the flag whether that
    /// write landed (see `launched`) instead of resetting again over what landed since.
    mutating func dayCheck(now: Double, day: String, store: Snapshot) -> [Effect] {
        guard let last = lastResetDay, day > last else { return [] }
        lastResetDay = day
        var out: [Effect] = []
        // A flag no poll has cleared yet (the last reset's): seen, cleared, as the poll would.
        if store[ExitKeys.dailyResetFlag]?.boolValue == true {
            out.append(.setDefaults([.set(ExitKeys.dailyResetFlag, .bool(false))], atomic: true))
        }
        out.append(.setPrivateDefaults([.set(PrivateKeys.resetPending, .string(day))], atomic: true))
        out += dailyReset(day: day, atomic: true)
        out.append(.setPrivateDefaults([.set(PrivateKeys.lastResetDay, .string(day)), .remove(PrivateKeys.resetPending)], atomic: true))
        return out
    }

    // MARK: The heartbeat (§6.1)

    /// `if now - lastHeartbeat > 300 { // Extension may be crashed, reinitialize reinitializeExtensions() }`:
    /// the decision traced (`reinitialize_extensions`); the seed shows nothing it does.
    func heartbeatCheck(now: Double, store: Snapshot) -> [Effect] {
        let last = store[ExitKeys.extensionHeartbeat]?.doubleValue ?? 0
        guard now - last > ExitKeys.heartbeatStaleSeconds else { return [] }
        return [.trace("reinitialize_extensions", ["heartbeat": String(last), "ageSeconds": String(Int(now - last))])]
    }

    // MARK: App selection (§5.2)

    func selectApps(_ apps: [String]) -> [Effect] {
        let record: DefaultsWrite
        switch variant {
        case .asWritten:
            // §5.2 `saveSelectedApps(_:)`, the picker's own write ("Save selected apps to App Group"):
            // `let bundleIds = tokens.compactMap { $0.bundleIdentifier }` is nil for every token in the
            // app (EDITS.md, line 396: `Application(token:).bundleIdentifier`), so
            // `appGroup?.set(try? JSONEncoder().encode(bundleIds), forKey: "monitored_apps")` stores
            // the `Data` of `[]` — not §2.1's "String (JSON array)" of bundle ids (A15). The JS side
            // never learns bundle ids (the picker resolves `true`), so §4.2's `setMonitoredApps` has
            // nothing to write.
            record = .set(ExitKeys.monitoredApps, .data((try? JSONEncoder().encode([String]())) ?? Data("[]".utf8)))
        case .hardened:
            // The §2.1 type (a JSON array string), with the apps the hardened host shields again (H3).
            record = .set(ExitKeys.monitoredApps, .string((try? JSONEncoder().encode(apps)).flatMap { String(data: $0, encoding: .utf8) } ?? "[]"))
        }
        return [
            .setDefaults([record], atomic: false),
            // A2: the selected apps are shielded (ManagedSettingsStore); A3: the daily schedule.
            .applyShields(apps),
            Self.registerDaily(),
        ]
    }

    static func registerDaily() -> Effect {
        .startMonitoringSchedule(
            activity: ExitKeys.dailyActivity,
            schedule: MonitoringSchedule(
                intervalStart: DateComponents(hour: 0, minute: 0), intervalEnd: DateComponents(hour: 23, minute: 59), repeats: true),
            events: [:])
    }

    /// `monitored_apps` as §4.2's `getMonitoredApps` reads it (`JSON.parse`).
    public static func monitoredApps(_ store: Snapshot) -> [String]? {
        guard let s = store[ExitKeys.monitoredApps]?.stringValue, let d = s.data(using: .utf8) else { return nil }
        return try? JSONDecoder().decode([String].self, from: d)
    }
}
