import AppGroup
import Foundation
import History
import ScreenTimeModel
import ScreenTimeOS
import Supervision
import OSFiles
import SystemKit

/// What the OS driver last showed the OS of the files the apps' frameworks write under `system/`
/// (registrations, shields, pending notifications, open prompts): a file is shown again only when
/// it changed.
struct OSFileScan {
    var registrations: [ActivityRegistrationRecord]?
    var shieldUnion: ShieldUnion?
    /// Every store's settings together at the last scan (the groups beyond the shield are looked
    /// at only when this changed: the scan is the costliest part of a step).
    var settings = ManagedSettingsUnion()
    var systemFileErrors: [String] = []
    var pendingNotifications: [NotificationRequestRecord]?
    /// Generations of the shims' notifications at the last scan (virtual time scans only when
    /// they moved or an interval boundary is due: scanning is the costliest part of a step).
    var generations: [UInt64] = []
    /// Generations of the prompts' notifications when they were last looked at, and the prompts answered.
    var promptGenerations: [UInt64] = []
    var answeredPrompts: Set<String> = []
    /// How far each shield-action trace has been read, and responses read ahead of their call's end.
    var traceOffsets: [String: UInt64] = [:]
    var shieldResponses: [Int: ShieldActionResponse] = [:]
}

extension LiveRun {
    /// Reads `system/deviceactivity/` and `system/managedsettings/` and shows the OS what changed.
    func osScan() {
        osScanRefusals()
        osScanNotifications()
        let registrations = DeviceActivityReader.registrations(on: device)
        // Every store's settings in one read: the shields, and the applications the user cannot open.
        let settings = ManagedSettingsReader.union(on: device)
        let shields = (union: settings.union.shield, errors: settings.errors)
        let errors = registrations.errors + shields.errors
        if errors != emulated.files.systemFileErrors {
            emulated.files.systemFileErrors = errors
            for e in errors { rec.record(.systemFileError, ["error": e]) }
        }
        if registrations.records != emulated.files.registrations {
            emulated.files.registrations = registrations.records
            osApply(.registrations(registrations.records))
        }
        if shields.union != emulated.files.shieldUnion {
            emulated.files.shieldUnion = shields.union
            osApply(.shields(shields.union))
        }
        if settings.union != emulated.files.settings {
            let previous = emulated.files.settings
            emulated.files.settings = settings.union
            // Every group beyond the shield, as the union of the stores says it, in the history when it changes.
            let other = settings.union.otherGroupsForHistory
            if other != previous.otherGroupsForHistory { rec.record(.managedSettings, other.isEmpty ? ["set": "none"] : other) }
            osApply(.managedSettings(settings.union))
        }
    }

    /// Refused `startMonitoring` calls the framework filed: shown to the OS once, then deleted.
    func osScanRefusals() {
        guard let area = try? device.area(OSPaths.deviceActivityRefusals) else { return }
        let (records, errors) = area.readAll(MonitoringRefusalRecord.self)
        for e in errors { rec.record(.systemFileError, ["error": e.description]) }
        for (name, r) in records.sorted(by: { $0.name < $1.name }) {
            area.directory.remove(name)
            osApply(.monitoringRefused(activity: r.activity, error: r.error, detail: r.detail))
        }
    }

    /// Pending notification requests and the app's removals of delivered ones.
    func osScanNotifications() {
        let pending = NotificationAuthority.pending(on: device)
        if pending.records != emulated.files.pendingNotifications {
            emulated.files.pendingNotifications = pending.records
            osApply(.notificationRequests(pending.records))
        }
        if let removed = try? NotificationAuthority.applyRemovals(on: device), !removed.isEmpty {
            osApply(.notificationsRemoved(removed))
        }
    }

    /// Virtual time: shows the OS the files when the frameworks posted a change, and the clock
    /// when one of its deadlines came; true if anything was recorded or launched.
    @discardableResult
    func scanEmulatedOSIfNeeded() -> Bool {
        let generation = center.generationSnapshot()
        let gens = [OSPaths.deviceActivityChanged, OSPaths.managedSettingsChanged, OSPaths.notificationsChanged]
            .map(generation)
        let due = emulated.deadline.map { $0 <= virtualTime.now } ?? false
        guard gens != emulated.files.generations || due else { return false }
        let before = rec.counts.values.reduce(0, +)
        osTick()
        if gens != emulated.files.generations {
            emulated.files.generations = gens
            osScan()
        }
        return rec.counts.values.reduce(0, +) != before
    }

    /// Open authorization prompts (FamilyControls, notifications) go to the OS, which answers as
    /// the scenario's user would. Cheap enough to look at while waiting for quiet: an app blocked
    /// in a prompt is not idle until it is answered.
    @discardableResult
    func answerPrompts() -> Bool {
        // Only once the prompts' notifications were delivered to the run (their observers set
        // `promptsDirty`): looking at the files at every wait for quiet was a read per name.
        guard promptsDirty.take() else { return false }
        let generation = center.generationSnapshot()
        let gens = [OSPaths.authorizationChanged, OSPaths.notificationsChanged].map(generation)
        guard gens != emulated.files.promptGenerations else { return false }
        emulated.files.promptGenerations = gens
        var answered = false
        if let r = try? FamilyControlsAuthority.openRequest(on: device), !emulated.files.answeredPrompts.contains(r.id) {
            emulated.files.answeredPrompts.insert(r.id)
            // What the app wrote before it asked is on disk before its request: the OS sees it
            // first, so a shield written while not yet approved is judged so (EMULATED-IOS.md §10.3).
            osScan()
            osApply(.authorizationRequested(.familyControls, requestId: r.id))
            answered = true
        }
        if let r = try? NotificationAuthority.openAuthorizationRequest(on: device), !emulated.files.answeredPrompts.contains(r.id) {
            emulated.files.answeredPrompts.insert(r.id)
            osApply(.authorizationRequested(.notifications, requestId: r.id))
            answered = true
        }
        return answered
    }

    /// The `responded` line of `delivery` in the role's trace (read on from where it was left).
    func shieldActionResponse(role: String, delivery: Int) -> ShieldActionResponse? {
        guard pack.descriptor.role(role)?.lifetime == .extension(.shieldAction) else { return nil }
        let path = paths.trace(role)
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let offset = emulated.files.traceOffsets[path] ?? 0
        try? handle.seek(toOffset: offset)
        guard let data = try? handle.readToEnd(), !data.isEmpty else { return nil }
        // Only whole lines; a torn last line is read again next time.
        guard let lastNewline = data.lastIndex(of: UInt8(ascii: "\n")) else { return nil }
        emulated.files.traceOffsets[path] = offset + UInt64(lastNewline - data.startIndex + 1)
        for line in data[..<lastNewline].split(separator: UInt8(ascii: "\n")) {
            guard let obj = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any], obj["event"] as? String == "responded",
                let d = obj["delivery"] as? String, let raw = obj["response"] as? String,
                let r = ShieldActionResponse(rawValue: raw)
            else { continue }
            emulated.files.shieldResponses[Int(d) ?? -1] = r
        }
        return emulated.files.shieldResponses.removeValue(forKey: delivery)
    }

    /// Whether tapping `action` of notification `identifier` opens the app: the notification itself
    /// does, dismissing does not, an action does when its category gives it `.foreground`.
    func notificationActionForegrounds(_ identifier: String, action: String) -> Bool {
        if action == NotificationResponseMessage.defaultActionIdentifier { return true }
        if action == NotificationResponseMessage.dismissActionIdentifier { return false }
        let delivered = (try? NotificationAuthority.delivered(on: device)) ?? []
        guard let category = delivered.last(where: { $0.request.identifier == identifier })?.request.content.categoryIdentifier,
            let c = ((try? NotificationAuthority.categories(on: device)) ?? []).first(where: { $0.identifier == category }),
            let a = c.actions.first(where: { $0.identifier == action })
        else { return false }
        return a.options.contains("foreground")
    }
}

extension ManagedSettingsUnion {
    /// Each settings group beyond the shield that some store sets, as compact JSON (sorted keys),
    /// keyed by Apple's group name; web content as every store's filter policy in file order.
    var otherGroupsForHistory: [String: String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func json<T: Encodable & Equatable>(_ value: T, empty: T) -> String? {
            guard value != empty, let data = try? encoder.encode(value) else { return nil }
            return String(decoding: data, as: UTF8.self)
        }
        var out: [String: String] = [:]
        out["account"] = json(account, empty: AccountSettingsRecord())
        out["appStore"] = json(appStore, empty: AppStoreSettingsRecord())
        out["application"] = json(application, empty: ApplicationSettingsRecord())
        out["cellular"] = json(cellular, empty: CellularSettingsRecord())
        out["dateAndTime"] = json(dateAndTime, empty: DateAndTimeSettingsRecord())
        out["gameCenter"] = json(gameCenter, empty: GameCenterSettingsRecord())
        out["media"] = json(media, empty: MediaSettingsRecord())
        out["passcode"] = json(passcode, empty: PasscodeSettingsRecord())
        out["safari"] = json(safari, empty: SafariSettingsRecord())
        out["siri"] = json(siri, empty: SiriSettingsRecord())
        out["webContent"] = json(webContentFilters, empty: [])
        return out
    }
}
