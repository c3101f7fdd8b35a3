import Foundation
import ScreenTimeModel
import SystemKit

/// The emulated iOS as one pure, deterministic type: events in (`OSEvent`), effects out
/// (`OSEffect`), every input kept in `journal` so a run's OS can be replayed and examined.
///
/// It keeps Apple's rules (EMULATED-IOS.md §7): DeviceActivity schedules evaluated from their date
/// components in the device's time zone (`ScheduleRules`), `repeats`, warning times, and
/// `intervalDidEnd` when an ongoing interval is stopped; event thresholds count the cumulative
/// frontmost use of the selected apps and categories within the interval and fire once;
/// ManagedSettings (`shields`) is the ground truth of what is shielded and survives every process;
/// opening a shielded app shows the shield (asking the shield-configuration extension, if the
/// system has one), a button press runs the shield-action extension and its answer is applied
/// (`.close` closes the app, `.defer` redraws, `.none` nothing); extensions run one process per
/// call; the host runs freely only in the foreground and is suspended a grace period after the
/// user leaves it. Field faults (`FieldFault`) are applied to the calls it makes, seeded.
public struct DeviceOS: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// IANA time zone of the device at the start.
        public var timeZone: String
        /// The extension points the system has (a call to a missing one is recorded, not made).
        public var extensionPoints: Set<ExtensionPoint>
        /// Device seconds between the user leaving the host and its suspension (SIGSTOP).
        public var backgroundGraceSeconds: Double
        /// Whether the host's lifecycle is iOS's (suspended in the background). Off: it runs free.
        public var hostLifecycle: Bool
        /// Category id of each app the user may open (for category shields and events).
        public var appCategories: [String: String]
        public var faults: [FieldFault]
        public var seed: UInt64
        /// The user's answer to FamilyControls prompts (`approved` | `denied`); nil = the OS does not
        /// model FamilyControls authorization (no status file: monitoring is allowed, EMULATED-IOS.md §7.4).
        public var familyControls: String?
        /// The user's answer to notification prompts (`authorized` | `denied` | `provisional`);
        /// nil = prompts stay unanswered (and nothing is shown: the status stays `notDetermined`).
        public var notifications: String?
        /// What the host's code hears from iOS besides taps (its role's `notices`).
        public var hostNotices: AppNotices = .none
        /// Documented alternatives to the OS's rules (`os.rules`); the defaults are Apple's.
        public var rules = OSRules()

        public init(
            timeZone: String, extensionPoints: Set<ExtensionPoint>, backgroundGraceSeconds: Double = 10, hostLifecycle: Bool = true,
            appCategories: [String: String] = [:], faults: [FieldFault] = [], seed: UInt64 = 0, familyControls: String? = nil,
            notifications: String? = nil
        ) {
            self.familyControls = familyControls
            self.notifications = notifications
            self.timeZone = timeZone
            self.extensionPoints = extensionPoints
            self.backgroundGraceSeconds = backgroundGraceSeconds
            self.hostLifecycle = hostLifecycle
            self.appCategories = appCategories
            self.faults = faults
            self.seed = seed
        }
    }

    public enum HostState: Sendable, Equatable {
        case notRunning
        case foreground
        case background(since: Double)
        case suspended
    }

    enum Frontmost: Sendable, Equatable {
        case home
        case host
        /// An unshielded app in use until `until`.
        case app(String, until: Double, label: [String: String])
        /// The shield of an app.
        case shield(String, label: [String: String])
    }

    public let configuration: Configuration
    public private(set) var now: Double
    var timeZone: TimeZone
    var activities: [String: ActivityState] = [:]
    public internal(set) var shield = ShieldUnion()
    /// Bundle ids no store lets the user open (`application.blockedApplications`).
    public internal(set) var blockedApplications: Set<String> = []
    /// Every store's settings beyond the shield as the OS applies them (nothing while the app is not
    /// approved), and as they were last read.
    public internal(set) var managedSettings = ManagedSettingsUnion()
    var managedSettingsRead = ManagedSettingsUnion()
    /// Apps the user deleted (and has not installed again): they do not open.
    public internal(set) var deletedApplications: Set<String> = []
    var recordedShieldApps: String?
    var frontmost: Frontmost = .home
    public internal(set) var host: HostState = .notRunning
    /// Whether the host was in the foreground when it last exited (nil: it has not exited yet).
    var hostForegroundAtExit: Bool?
    var nextDelivery = 1
    /// Shield-action calls waiting for their answer, by delivery.
    var shieldCalls: [Int: (app: String, label: [String: String])] = [:]
    /// Calls a fault holds back, in the order they were held.
    var held: [HeldCall] = []
    /// `duplicate`: the second copy of a call, made once the first has returned (by its delivery).
    /// Made one after the other, so the two copies' crash points count in one order every run.
    var duplicateAfter: [Int: (call: ExtensionCall, label: [String: String])] = [:]
    /// Times each rule acted, and calls each rule selected, by (rule, budget period): the whole
    /// run is period 0; `per: day` counts by local day.
    var faultCounts: [Int: Int] = [:]
    var budgetActed: [BudgetKey: Int] = [:]
    var budgetSelected: [BudgetKey: Int] = [:]

    struct BudgetKey: Hashable {
        var rule: Int
        var period: Int
    }
    var random: SeededGenerator
    /// FamilyControls status as the OS last wrote it (nil = not modelled).
    public internal(set) var familyControlsStatus: String?
    /// Notification authorization as the OS last wrote it.
    public internal(set) var notificationStatus = "notDetermined"
    /// Pending notification requests by identifier, with their next fire time (nil = never).
    var pendingNotifications: [String: PendingNotification] = [:]
    /// Identifiers in Notification Center (delivered, not yet tapped or removed).
    public internal(set) var deliveredNotifications: Set<String> = []

    struct PendingNotification: Sendable, Equatable {
        var record: NotificationRequestRecord
        var nextFire: Double?
    }
    /// Locked after a reboot, before the first unlock (fault rules' `when: beforeFirstUnlock`).
    public internal(set) var lockedBeforeFirstUnlock = false
    /// When each event a fault rule may follow last happened (`FieldFault.relationEvents`, and
    /// callbacks by name at their delivery), device unix seconds.
    var lastEventAt: [String: Double] = [:]
    /// Frontmost use of unshielded apps, oldest first, for the past activity an event may count
    /// (`includesPastActivity`, `os.rules.pastActivity`): at most `maxUseLog` spans, none older
    /// than `ActivityState.horizonSeconds`.
    var useLog: [UseSpan] = []
    static let maxUseLog = 10_000

    struct UseSpan: Sendable, Equatable {
        var app: String
        var from: Double
        var to: Double
    }
    /// Every event applied, in order.
    public private(set) var journal: [OSEvent] = []
    /// Bound on the journal (a day of a busy run is far below).
    public static let maxJournal = 1_000_000

    struct HeldCall: Sendable, Equatable {
        var releaseAt: Double
        var call: ExtensionCall
        var label: [String: String]
    }

    public init(configuration: Configuration, now: Double) {
        self.configuration = configuration
        self.now = now
        timeZone = TimeZone(identifier: configuration.timeZone) ?? TimeZone(identifier: "UTC")!
        random = SeededGenerator(seed: configuration.seed, stream: 3)
    }

    public mutating func apply(_ event: OSEvent) -> [OSEffect] {
        if journal.count < Self.maxJournal { journal.append(event) }
        var out: [OSEffect] = []
        switch event {
        case .clock(let t):
            guard t >= now else {
                return [.record(.osClockRefused, ["now": String(now), "asked": String(t)])]
            }
            accountUsage(until: t, &out)
            // Two calendar lookups per clock step only for a host that listens (a hot path).
            let crossedMidnight = configuration.hostNotices.significantTimeChange && localDay(t) != localDay(now)
            now = t
            if crossedMidnight { tellSignificantTimeChange(&out) }
            releaseHeld(&out)
            fireDueNotifications(&out)
            hostTick(&out)
            endFinishedUse(&out)
        case .registrations(let records):
            registrationsChanged(records, &out)
        case .shields(let union):
            shieldsChanged(union, &out)
        case .managedSettings(let union):
            managedSettingsChanged(union, &out)
        case .user(let u):
            user(u, &out)
        case .callEnded(let delivery, let completed, let response):
            callEnded(delivery, completed: completed, response: response, &out)
            if let copy = duplicateAfter.removeValue(forKey: delivery) { deliver(copy.call, label: copy.label, &out) }
        case .hostExited:
            lastEventAt["hostExit"] = now
            if host != .notRunning { hostForegroundAtExit = host == .foreground }
            if host != .notRunning { out.append(.record(.hostState, ["state": "notRunning"])) }
            host = .notRunning
            if frontmost == .host { frontmost = .home }
        case .hostLaunched:
            lastEventAt["hostLaunch"] = now
            // Launched to handle a notification action in the background: it stays there.
            if case .background = host { break }
            // Brought back after a kill that found it in the background or suspended (the
            // nemesis's restart, a crash's relaunch) — not by the user, who opens it through
            // `openHost` (foreground before this launch): iOS does not put a killed background app
            // in front of what the user is doing. It comes back in the background and is
            // suspended after the grace period, as any app the user left (EMULATED-IOS.md §10.2).
            if host == .notRunning, configuration.hostLifecycle, hostForegroundAtExit == false {
                host = .background(since: now)
                out.append(.record(.hostState, ["state": "background", "why": "relaunched after a kill in the background"]))
                tellLifecycle(active: false, &out)
                hostTick(&out)
                break
            }
            host = .foreground
            frontmost = .host
            out.append(.record(.hostState, ["state": "foreground"]))
            tellLifecycle(active: true, &out)
        case .reboot:
            reboot(&out)
        case .timeZone(let identifier):
            guard let tz = TimeZone(identifier: identifier) else {
                out.append(.record(.osTimeZoneRefused, ["timeZone": identifier]))
                break
            }
            timeZone = tz
            lastEventAt["timeZoneChange"] = now
            rescheduleNotifications()
            out.append(.record(.timeZone, ["timeZone": identifier]))
            tellSignificantTimeChange(&out)
        case .harnessCall(let call, let label):
            makeCall(call, label: label, &out)
        case .boot:
            boot(&out)
        case .monitoringRefused(let activity, let error, let detail):
            out.append(.record(.monitoringRefused, ["activity": activity, "error": error, "detail": detail]))
        case .authorizationRequested(let kind, let id):
            answer(kind, requestId: id, &out)
        case .revokeAuthorization:
            lastEventAt["revocation"] = now
            revoke(&out)
        case .notificationRequests(let records):
            notificationRequestsChanged(records, &out)
        case .notificationsRemoved(let ids):
            for id in ids.sorted() where deliveredNotifications.remove(id) != nil {
                out.append(.record(.notificationRemoved, ["identifier": id]))
            }
        case .deviceLocked:
            lockedBeforeFirstUnlock = true
        case .firstUnlock:
            lockedBeforeFirstUnlock = false
            lastEventAt["firstUnlock"] = now
        }
        emitDueBoundaries(&out)
        return out
    }

    /// The earliest device time after `now` at which something happens by itself.
    public mutating func nextDeadline() -> Double? {
        var candidates: [Double] = []
        for name in activities.keys.sorted() {
            if let t = activities[name]!.nextBoundary(after: now, timeZone: timeZone) { candidates.append(t) }
        }
        candidates += usageDeadlines()
        if case .app(_, let until, _) = frontmost { candidates.append(until) }
        candidates += held.map(\.releaseAt)
        candidates += pendingNotifications.values.compactMap(\.nextFire)
        if configuration.hostLifecycle, case .background(let since) = host { candidates.append(since + configuration.backgroundGraceSeconds) }
        if configuration.hostNotices.significantTimeChange, host != .notRunning, let midnight = nextLocalMidnight() { candidates.append(midnight) }
        return candidates.filter { $0 > now }.min()
    }

    /// True while `activity` is registered and inside an interval that has started.
    public func isMonitored(_ activity: String) -> Bool { activities[activity]?.inInterval ?? false }

    /// What is shielded now, as bundle identifiers (by name; category policies aside).
    public var shieldedApplications: Set<String> { shield.applications }

    public func isShielded(_ bundleIdentifier: String) -> Bool {
        shield.isShielded(application: bundleIdentifier, category: configuration.appCategories[bundleIdentifier])
    }

    // MARK: Calls (every one goes through the field faults)

    mutating func makeCall(_ call: ExtensionCall, label: [String: String], _ out: inout [OSEffect], faultsApply: Bool = true) {
        guard configuration.extensionPoints.contains(call.point) else {
            out.append(.record(.callbackNotDelivered, ["callback": call.callbackName, "why": "no \(call.point.rawValue) extension"]))
            return
        }
        if faultsApply, let (index, fault) = fault(for: call) {
            var f = label
            f["callback"] = call.callbackName
            f["fault"] = fault.name
            f["rule"] = FieldFault.ruleName(index)
            if case .monitor(_, let activity, _) = call { f["activity"] = activity }
            switch fault.kind {
            case .drop:
                out.append(.record(.callbackDropped, f))
                return
            case .delay(let range):
                let seconds = range.lowerBound + random.unit() * (range.upperBound - range.lowerBound)
                f["until"] = String(now + seconds)
                out.append(.record(.callbackHeld, f))
                held.append(HeldCall(releaseAt: now + seconds, call: call, label: label))
                return
            case .batchUntil(let hour, let minute):
                let at = nextLocalTime(hour: hour, minute: minute)
                f["until"] = String(at)
                out.append(.record(.callbackHeld, f))
                held.append(HeldCall(releaseAt: at, call: call, label: label))
                return
            case .duplicate:
                out.append(.record(.callbackDuplicated, f))
                let first = deliver(call, label: label, &out)
                duplicateAfter[first] = (call, label)
                return
            case .killMidCall:
                // The delivery line says which rule will kill it (the kill itself is the harness's).
                let delivery = deliver(call, label: label.merging(["fault": fault.name, "rule": FieldFault.ruleName(index)]) { a, _ in a }, &out)
                out.append(.killCall(delivery: delivery))
                return
            case .reorderAtBoundary, .staleDefaults, .tornWrite:
                break  // applied where boundaries are ordered / inside the processes, not per call
            }
        }
        deliver(call, label: label, &out)
    }

    @discardableResult
    mutating func deliver(_ call: ExtensionCall, label: [String: String], _ out: inout [OSEffect]) -> Int {
        let delivery = nextDelivery
        nextDelivery += 1
        var f = label
        if case .monitor(_, let activity, _) = call, f["activity"] == nil { f["activity"] = activity }
        if case .shieldAction(_, let app) = call { shieldCalls[delivery] = (app, label) }
        lastEventAt[call.callbackName] = now
        out.append(.call(call, delivery: delivery, label: f))
        return delivery
    }

    mutating func releaseHeld(_ out: inout [OSEffect]) {
        let due = held.filter { $0.releaseAt <= now }
        guard !due.isEmpty else { return }
        held.removeAll { $0.releaseAt <= now }
        for h in due {
            var f = h.label
            f["callback"] = h.call.callbackName
            out.append(.record(.callbackReleased, f))
            deliver(h.call, label: h.label, &out)
        }
    }

    /// The first fault rule that selects `call` now and passes its chance and count.
    mutating func fault(for call: ExtensionCall) -> (Int, FieldFault)? {
        for (i, rule) in configuration.faults.enumerated() where rule.kind != .reorderAtBoundary && !rule.kind.isDefaultsFault {
            guard rule.selects(call, now: now), conditionsHold(rule), withinBudget(i, rule) else { continue }
            guard random.chance(rule.probability) else { continue }
            faultCounts[i, default: 0] += 1
            budgetActed[budgetKey(i, rule), default: 0] += 1
            return (i, rule)
        }
        return nil
    }

    /// Whether a reorder fault swaps the end and start falling together at this boundary.
    /// The index of the reorder rule that swaps this boundary, nil when none does.
    mutating func reorders(_ activity: String) -> Int? {
        for (i, rule) in configuration.faults.enumerated() where rule.kind == .reorderAtBoundary {
            let probe = ExtensionCall.monitor(.intervalDidStart, activity: activity, event: nil)
            guard rule.selects(probe, now: now), conditionsHold(rule), withinBudget(i, rule) else { continue }
            guard random.chance(rule.probability) else { continue }
            faultCounts[i, default: 0] += 1
            budgetActed[budgetKey(i, rule), default: 0] += 1
            return i
        }
        return nil
    }

    /// Whether the device's state and recent events are as the rule's `when` and `following` ask.
    func conditionsHold(_ rule: FieldFault) -> Bool {
        if !rule.when.isEmpty && !rule.when.contains(where: holds) { return false }
        if let r = rule.following {
            guard let t = lastEventAt[r.event], now - t <= r.withinSeconds else { return false }
        }
        return true
    }

    func holds(_ condition: FieldFault.DeviceCondition) -> Bool {
        switch condition {
        case .beforeFirstUnlock: return lockedBeforeFirstUnlock
        case .unlocked: return !lockedBeforeFirstUnlock
        case .hostNotRunning: return host == .notRunning
        case .hostForeground: return host == .foreground
        case .hostBackground: if case .background = host { return true } else { return false }
        case .hostSuspended: return host == .suspended
        }
    }

    func budgetKey(_ i: Int, _ rule: FieldFault) -> BudgetKey {
        switch rule.per {
        case .run: return BudgetKey(rule: i, period: 0)
        case .day:
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            let day = calendar.ordinality(of: .day, in: .era, for: Date(timeIntervalSince1970: now)) ?? 0
            return BudgetKey(rule: i, period: day)
        }
    }

    /// Counts a call rule `i` selects against its budget: true when the rule may act on it (past
    /// its first `after` selected calls, under `maxCount` acts in this period).
    mutating func withinBudget(_ i: Int, _ rule: FieldFault) -> Bool {
        let key = budgetKey(i, rule)
        budgetSelected[key, default: 0] += 1
        if budgetSelected[key, default: 0] <= rule.after { return false }
        if let max = rule.maxCount, budgetActed[key, default: 0] >= max { return false }
        return true
    }

    func nextLocalTime(hour: Int, minute: Int) -> Double {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let date = calendar.nextDate(
            after: Date(timeIntervalSince1970: now), matching: DateComponents(hour: hour, minute: minute), matchingPolicy: .nextTime)
        return date?.timeIntervalSince1970 ?? now + 86_400
    }

    // MARK: Reboot

    mutating func reboot(_ out: inout [OSEffect]) {
        out.append(.record(.reboot, [:]))
        lastEventAt["reboot"] = now
        // In-memory state of iOS's daemons: calls waiting or on their way are lost.
        held.removeAll()
        duplicateAfter.removeAll()
        shieldCalls.removeAll()
        frontmost = .home
        host = .notRunning
        // Registrations persist and monitoring restarts (seed 000: "DeviceActivity monitoring is
        // restarted by iOS"); usage counted in the interval before the reboot stays counted.
    }
}
