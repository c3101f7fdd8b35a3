import History

/// Every kind of line the harness writes to the history as itself (`process: "harness"`):
/// the run's own bookkeeping, its processes, what the emulated iOS did, the faults it injected and
/// the user's steps. The recorder takes only these, so this list is the whole vocabulary a checker
/// reads; docs/HISTORY-LINES.md is generated from it (`HarnessLineCatalogTests`). A pack adds lines
/// of its own after the run (`SystemPack.evidence`, e.g. FocusPledge's `ledger`): those are the
/// pack's and documented in its README.
public enum HarnessLine: String, CaseIterable, Sendable {
    // run
    case clockError = "clock_error"
    case deviceLockError = "device_lock_error"
    case foundationDefaults = "foundation_defaults"
    case inboxError = "inbox_error"
    case quarantine = "quarantine"
    case quiesce = "quiesce"
    case quiescenceTimeout = "quiescence_timeout"
    case runFinished = "run_finished"
    case runInterrupted = "run_interrupted"
    case runOverran = "run_overran"
    case runStarted = "run_started"
    case settleBound = "settle_bound"
    case systemFileError = "system_file_error"
    case tamper = "tamper"
    case tamperScan = "tamper_scan"
    // process
    case exit = "exit"
    case gaveUpRestarting = "gave_up_restarting"
    case signal = "signal"
    case spawn = "spawn"
    case spawnFailed = "spawn_failed"
    // ios
    case appBlocked = "app_blocked"
    case appClosed = "app_closed"
    case appDeleted = "app_deleted"
    case appInUse = "app_in_use"
    case appInstallDenied = "app_install_denied"
    case appInstalled = "app_installed"
    case appLeft = "app_left"
    case appNotInstalled = "app_not_installed"
    case appRemovalDenied = "app_removal_denied"
    case authorization = "authorization"
    case blockedApplications = "blocked_applications"
    case blockedApplicationsIgnored = "blocked_applications_ignored"
    case callbackCompleted = "callback_completed"
    case callbackDelivered = "callback_delivered"
    case callbackFailed = "callback_failed"
    case callbackNotDelivered = "callback_not_delivered"
    case callbackQueued = "callback_queued"
    case callbackStarted = "callback_started"
    case deviceLocked = "device_locked"
    case firstUnlock = "first_unlock"
    case hostState = "host_state"
    case intervalMissed = "interval_missed"
    case managedSettings = "managed_settings"
    case managedSettingsIgnored = "managed_settings_ignored"
    case monitoringRefused = "monitoring_refused"
    case monitoringRegistered = "monitoring_registered"
    case monitoringRemoved = "monitoring_removed"
    case notificationDelivered = "notification_delivered"
    case notificationNotShown = "notification_not_shown"
    case notificationRefused = "notification_refused"
    case notificationRemoved = "notification_removed"
    case notificationScheduled = "notification_scheduled"
    case notificationTapUnavailable = "notification_tap_unavailable"
    case notificationTapped = "notification_tapped"
    case notificationWithdrawn = "notification_withdrawn"
    case osClockRefused = "os_clock_refused"
    case osTimeZoneRefused = "os_time_zone_refused"
    case reboot = "reboot"
    case shieldActionLost = "shield_action_lost"
    case shieldButtonUnavailable = "shield_button_unavailable"
    case shieldClosedApp = "shield_closed_app"
    case shieldLifted = "shield_lifted"
    case shieldRedrawn = "shield_redrawn"
    case shieldShown = "shield_shown"
    case shieldUnchanged = "shield_unchanged"
    case shields = "shields"
    case shieldsIgnored = "shields_ignored"
    case timeZone = "time_zone"
    case urlNotHandled = "url_not_handled"
    case websiteBlocked = "website_blocked"
    case websiteVisited = "website_visited"
    // nemesis
    case callbackDropped = "callback_dropped"
    case callbackDuplicated = "callback_duplicated"
    case callbackHeld = "callback_held"
    case callbackReleased = "callback_released"
    case callbacksReordered = "callbacks_reordered"
    case defaultsFaultArmed = "defaults_fault_armed"
    case faultArmed = "fault_armed"
    case faultSkipped = "fault_skipped"
    // user
    case userAction = "user_action"
    case userRetry = "user_retry"
    case userTapLost = "user_tap_lost"

    /// Who writes a line: the run itself, its process supervision, the emulated iOS, the nemesis
    /// (faults the scenario asked for) or the user.
    public enum Source: String, CaseIterable, Sendable {
        case run, process, ios, nemesis, user
    }

    public var source: Source {
        switch self {
        case .clockError, .deviceLockError, .foundationDefaults, .inboxError, .quarantine, .quiesce, .quiescenceTimeout,
            .runFinished, .runInterrupted, .runOverran, .runStarted, .settleBound, .systemFileError, .tamper, .tamperScan: .run
        case .exit, .gaveUpRestarting, .signal, .spawn, .spawnFailed: .process
        case .appBlocked, .appClosed, .appDeleted, .appInUse, .appInstallDenied, .appInstalled, .appLeft, .appNotInstalled,
            .appRemovalDenied, .authorization, .blockedApplications, .blockedApplicationsIgnored, .callbackCompleted,
            .callbackDelivered, .callbackFailed, .callbackNotDelivered, .callbackQueued, .callbackStarted, .deviceLocked,
            .firstUnlock, .hostState, .intervalMissed, .managedSettings, .managedSettingsIgnored, .monitoringRefused,
            .monitoringRegistered, .monitoringRemoved, .notificationDelivered, .notificationNotShown,
            .notificationRefused, .notificationRemoved, .notificationScheduled, .notificationTapUnavailable,
            .notificationTapped, .notificationWithdrawn, .osClockRefused, .osTimeZoneRefused, .reboot, .shieldActionLost,
            .shieldButtonUnavailable, .shieldClosedApp, .shieldLifted, .shieldRedrawn, .shieldShown, .shieldUnchanged,
            .shields, .shieldsIgnored, .timeZone, .urlNotHandled, .websiteBlocked, .websiteVisited: .ios
        case .callbackDropped, .callbackDuplicated, .callbackHeld, .callbackReleased, .callbacksReordered,
            .defaultsFaultArmed, .faultArmed, .faultSkipped: .nemesis
        case .userAction, .userRetry, .userTapLost: .user
        }
    }

    /// Its fields beside the five fixed keys, in reading order; `?` marks one not always there,
    /// `<…>` fields a pack chooses (a user step's label, which iOS carries onto its calls).
    public var fields: [String] {
        switch self {
        case .appBlocked: ["app", "<label>?"]
        case .appClosed: ["app", "why"]
        case .appDeleted: ["app"]
        case .appInUse: ["app", "seconds", "<label>?"]
        case .appInstallDenied: ["app"]
        case .appInstalled: ["app"]
        case .appLeft: ["app"]
        case .appNotInstalled: ["app", "why?", "<label>?"]
        case .appRemovalDenied: ["app"]
        case .authorization: ["kind", "status", "request?", "why?"]
        case .blockedApplications: ["apps"]
        case .blockedApplicationsIgnored: ["apps", "why"]
        case .callbackCompleted: ["callback", "delivery", "childPid", "status"]
        case .callbackDelivered: ["callback", "delivery", "childPid", "activity?", "field_event?", "app?", "why?", "fault?", "rule?", "pastActivitySeconds?", "deferredUntil?", "<label>?"]
        case .callbackFailed: ["callback", "delivery", "status", "childPid?"]
        case .callbackNotDelivered: ["callback", "delivery?", "why?", "error?", "activity?", "<label>?"]
        case .callbackQueued: ["callback", "delivery", "behind", "activity?", "<label>?"]
        case .callbackStarted: ["callback", "delivery", "deferredUntil", "childPid"]
        case .deviceLocked: ["until", "why"]
        case .firstUnlock: ["by"]
        case .hostState: ["state", "why?"]
        case .intervalMissed: ["activity", "start", "end", "rule", "why"]
        case .managedSettings: ["set?", "account?", "appStore?", "application?", "cellular?", "dateAndTime?", "gameCenter?", "media?", "passcode?", "safari?", "siri?", "webContent?"]
        case .managedSettingsIgnored: ["why"]
        case .monitoringRefused: ["activity", "error", "detail"]
        case .monitoringRegistered: ["activity", "repeats"]
        case .monitoringRemoved: ["activity", "why?"]
        case .notificationDelivered: ["identifier"]
        case .notificationNotShown: ["identifier", "why"]
        case .notificationRefused: ["identifier", "why"]
        case .notificationRemoved: ["identifier"]
        case .notificationScheduled: ["identifier", "fireAt"]
        case .notificationTapUnavailable: ["identifier", "action?", "why?"]
        case .notificationTapped: ["identifier", "action", "foreground"]
        case .notificationWithdrawn: ["identifier"]
        case .osClockRefused: ["now", "asked"]
        case .osTimeZoneRefused: ["timeZone"]
        case .reboot: []
        case .shieldActionLost: ["app", "delivery", "<label>?"]
        case .shieldButtonUnavailable: ["action", "<label>?"]
        case .shieldClosedApp: ["app", "delivery?", "response?", "why?", "<label>?"]
        case .shieldLifted: ["app"]
        case .shieldRedrawn: ["app", "delivery", "response", "<label>?"]
        case .shieldShown: ["app", "<label>?"]
        case .shieldUnchanged: ["app", "delivery", "response", "<label>?"]
        case .shields: ["apps", "categoryPolicies?"]
        case .shieldsIgnored: ["apps", "status", "why", "categoryPolicies?", "webDomains?"]
        case .timeZone: ["timeZone"]
        case .urlNotHandled: ["url"]
        case .websiteBlocked: ["domain", "by"]
        case .websiteVisited: ["domain"]
        case .callbackDropped: ["callback", "fault", "rule", "activity?", "<label>?"]
        case .callbackDuplicated: ["callback", "fault", "rule", "activity?", "<label>?"]
        case .callbackHeld: ["callback", "fault", "rule", "until", "activity?", "<label>?"]
        case .callbackReleased: ["callback", "activity?", "<label>?"]
        case .callbacksReordered: ["activity", "fault", "rule"]
        case .defaultsFaultArmed: ["target", "spec"]
        case .faultArmed: ["target", "kind"]
        case .faultSkipped: ["target", "kind", "why"]
        case .exit: ["target", "childPid", "status", "by?"]
        case .gaveUpRestarting: ["target"]
        case .signal: ["target", "childPid?", "signal", "by", "delivery?", "at?"]
        case .spawn: ["target", "childPid", "spawnMono"]
        case .spawnFailed: ["target", "error"]
        case .clockError: ["error"]
        case .deviceLockError: ["file"]
        case .foundationDefaults: ["target", "suite", "file"]
        case .inboxError: ["target", "error"]
        case .quarantine: ["file", "movedTo", "reason"]
        case .quiesce: []
        case .quiescenceTimeout: ["waitingFor"]
        case .runFinished: ["kill?", "term?", "stop?", "crashPoints?", "steps?", "quiescenceTimeouts?"]
        case .runInterrupted: ["signal"]
        case .runOverran: ["why", "extensionCallsRunning"]
        case .runStarted: ["scenario", "system", "variant", "seed", "rate", "clockMode", "timeZone", "deviceRoot", "command", "build", "osRules?", "appGroupUnavailable?", "failpoints?", "extraFailpoints?", "durationSeconds?", "userRetry", "userRetryOverride?", "crashPoints?", "cpu?", "invariants?", "shard?", "planIndex?", "planRuns?", "plan?", "<pack facts>?"]
        case .settleBound: ["rounds", "why"]
        case .systemFileError: ["error"]
        case .tamper: ["file", "what"]
        case .tamperScan: ["why"]
        case .userAction: ["action", "<pack fields>?"]
        case .userRetry: ["target", "action", "seq", "how", "retrySeq", "taps?", "<tap fields>?"]
        case .userTapLost: ["target", "action", "seq", "how", "why", "retryOf?", "<tap fields>?"]
        }
    }

    /// What it means, in one sentence.
    public var meaning: String {
        switch self {
        case .appBlocked:
            "The user tried to open an app in blockedApplications; it did not open, no use counted, no shield."
        case .appClosed:
            "The app in use (or its shield) was closed because it became blocked."
        case .appDeleted:
            "The user deleted an app; it does not open until installed again."
        case .appInUse:
            "The user opened an unshielded app and keeps it frontmost for `seconds`; its use counts toward DeviceActivity event thresholds."
        case .appInstallDenied:
            "The user tried to install an app but a store sets application.denyAppInstallation."
        case .appInstalled:
            "The user installed an app (again)."
        case .appLeft:
            "The user finished using the app (its seconds are over) and went back to the home screen."
        case .appNotInstalled:
            "The user tried to open or delete an app already deleted; it is not installed."
        case .appRemovalDenied:
            "The user tried to delete an app but a store sets application.denyAppRemoval."
        case .authorization:
            "iOS set FamilyControls or notification authorization: notDetermined at boot, the scripted answer to a prompt (request), or denied on revocation."
        case .blockedApplications:
            "ManagedSettings' application.blockedApplications changed: these apps cannot be opened."
        case .blockedApplicationsIgnored:
            "Blocked applications were written without FamilyControls approval and are not enforced."
        case .callbackCompleted:
            "The extension process of a call exited cleanly (status 0)."
        case .callbackDelivered:
            "iOS launched an extension process for a call (childPid '-' when killed at launch); delivery is its id. Checkers match callbacks by callback and activity."
        case .callbackFailed:
            "The extension call ended badly: non-zero exit, signalled, or killed at launch by iOS or the nemesis (status says which)."
        case .callbackNotDelivered:
            "A call iOS meant to make never ran: no such extension, too many calls running, spawn failed, or a reboot forgot it while queued."
        case .callbackQueued:
            "The extension was busy with another call (delivery `behind`); this call waits and starts after it, extensions take one call at a time."
        case .callbackStarted:
            "A call a nemesis stop held back at launch is finally started once the stop ended."
        case .deviceLocked:
            "After a reboot the device stays locked (data protection) until its first unlock at `until` or the user's next action."
        case .firstUnlock:
            "The device was unlocked for the first time since the reboot, by the user acting or by time (os.lockedAfterReboot over)."
        case .hostState:
            "The host app's lifecycle state changed: foreground, background, suspended or notRunning (why: force quit, notification action, relaunched after a background kill)."
        case .intervalMissed:
            "Under os.rules.startAtRegistration: missed, an interval that started at registration is skipped entirely (no intervalDidStart)."
        case .managedSettings:
            "The settings beyond the shield that some store sets changed: one JSON field per group, or set=none when none remain."
        case .managedSettingsIgnored:
            "Application or web-content settings were written without FamilyControls approval and are not enforced."
        case .monitoringRefused:
            "An app's startMonitoring was refused by DeviceActivity (e.g. unauthorized); recorded by the OS even if the app swallowed the error."
        case .monitoringRegistered:
            "iOS started monitoring a new or changed DeviceActivity registration; checkers read which activities were registered and when."
        case .monitoringRemoved:
            "A registration disappeared (stopMonitoring) or was removed by authorization revocation (no intervalDidEnd then)."
        case .notificationDelivered:
            "A notification fired and was shown (appended to Notification Center) because notifications are authorized."
        case .notificationNotShown:
            "A notification fired but was dropped because notifications are not authorized."
        case .notificationRefused:
            "iOS refused a notification request whose trigger is invalid (e.g. repeating interval under 60 s)."
        case .notificationRemoved:
            "The app removed a delivered notification from Notification Center (removeDeliveredNotifications)."
        case .notificationScheduled:
            "iOS accepted a pending local notification request and computed when it fires (or never)."
        case .notificationTapUnavailable:
            "The user tried to tap a notification that is not in Notification Center; nothing reaches the app."
        case .notificationTapped:
            "The user tapped a delivered notification or one of its actions; the response goes to the host, launched or foregrounded or run in background."
        case .notificationWithdrawn:
            "A pending notification request was removed by the app before it fired."
        case .osClockRefused:
            "The emulated OS was asked to move its clock backwards and refused (device time never goes back)."
        case .osTimeZoneRefused:
            "A scripted time-zone change named an unknown IANA zone; the OS kept the old one."
        case .reboot:
            "The device rebooted (os.reboots): every app and extension process is killed, held calls forgotten; settings, containers and registrations persist."
        case .shieldActionLost:
            "The shield-action extension died or returned no answer for a button press; nothing happened on screen."
        case .shieldButtonUnavailable:
            "The user tried to press a shield button but no shield was on screen."
        case .shieldClosedApp:
            "The shield closed its app: the shield-action answer was .close, or there is no shield-action extension."
        case .shieldLifted:
            "The shield on screen went away because its app is no longer shielded; the user is back home."
        case .shieldRedrawn:
            "The shield-action answer was .defer: the shield is redrawn and configuration is called again."
        case .shieldShown:
            "An app the user opened (or was using) is shielded: the shield is on screen and the shield-configuration extension is called."
        case .shieldUnchanged:
            "The shield-action answer was .none: the shield stays as it is."
        case .shields:
            "The union of every ManagedSettings store's shield changed: the ground truth of what is shielded, which shield checkers read."
        case .shieldsIgnored:
            "Shields written while FamilyControls is not approved were not applied and the stores were deleted."
        case .timeZone:
            "The device's time zone changed (os.timeZoneChanges); schedules and calendar triggers are evaluated in the new zone from now."
        case .urlNotHandled:
            "The user opened a URL whose scheme the host did not register; the host is not told."
        case .websiteBlocked:
            "The user opened a website and it was blocked, by a webContent filter or a web-domain shield."
        case .websiteVisited:
            "The user opened a website in Safari and it loaded (no filter or shield blocked it)."
        case .callbackDropped:
            "An os.faults drop rule made iOS never make this extension call; checkers count it as a disturbance, not the app's fault."
        case .callbackDuplicated:
            "An os.faults duplicate rule makes this call twice: the second copy once the first has returned, giving two callback_delivered lines."
        case .callbackHeld:
            "An os.faults delay or batch rule held this call back until device time `until`; it is made later (callback_released)."
        case .callbackReleased:
            "A call held by a delay/batch fault is made now (a callback_delivered follows); a reboot forgets held calls instead."
        case .callbacksReordered:
            "An os.faults reorder rule swapped an activity's intervalDidEnd and next intervalDidStart at one instant (start made first)."
        case .defaultsFaultArmed:
            "At start: os.faults App Group faults (stale_defaults, torn_write) handed to a role as its SCREENTIME_DEFAULTS_FAULTS spec."
        case .faultArmed:
            "Virtual time: a planned kill/term/stop of an extension role found no call running, so it waits for that role's next call."
        case .faultSkipped:
            "A planned nemesis fault was not carried out: target not running, already stopped, suspended by iOS, or no call before the workload ended."
        case .exit:
            "A long-lived process ended (crash, kill, shutdown); status is its exit status, by=harness at the final shutdown. Checkers use it for process lifetimes."
        case .gaveUpRestarting:
            "A long-lived role crashed more than 50 times; the harness stops relaunching it."
        case .signal:
            "A signal (KILL/TERM/STOP/CONT) to a process; by = nemesis, ios, watchdog, reboot or harness; at=launch when an extension call was hit before starting."
        case .spawn:
            "The harness started a long-lived role (server or app); childPid maps later lines' pids to the role, spawnMono is when the spawn began."
        case .spawnFailed:
            "Starting a long-lived role failed; the process table retries it after 100 ms."
        case .clockError:
            "The harness failed to write the device clock file (time step, time-zone change, or final catch-up)."
        case .deviceLockError:
            "After a reboot with os.lockedAfterReboot the harness could not create the device's locked marker, so the device is not locked."
        case .foundationDefaults:
            "A role wrote an App Group suite through Linux Foundation's private UserDefaults (its sandbox), not the App Group; the run is undecided."
        case .inboxError:
            "The harness could not write a message (tap, OS notice, notification response) to the role's inbox; the message is lost."
        case .quarantine:
            "After the run: a device-root file a participant found corrupt and moved aside (the root's quarantine record); checkers cite it."
        case .quiesce:
            "The workload is over: nemesis stops end, downed processes come back, and the system settles fault-free until the run ends."
        case .quiescenceTimeout:
            "Virtual time: the wait for every participant to go quiet at one instant ran out; waitingFor names who still held device time."
        case .runFinished:
            "The run reached its end and stopped every process; counts of nemesis faults by kind. Without it (or with run_interrupted) the run is undecided."
        case .runInterrupted:
            "The harness caught SIGINT/SIGTERM and stopped the run early; the checker judges it undecided (interrupted)."
        case .runOverran:
            "The run did not settle within its wall-time bound (fixed rate) or virtual time did not reach the end; the harness gave up; a core rule reports it."
        case .runStarted:
            "The run began: scenario, system, variant, seed, clock, start time zone, device root, build ids, whether the user taps again after the app died in a tap (userRetry) and pack facts; checkers read timeZone and invariants, replay reruns from it."
        case .settleBound:
            "Virtual time: the OS kept seeing new system/ writes at one instant, so settling stopped after its round limit instead of hanging."
        case .systemFileError:
            "A system/ record could not be read or written (registrations, settings, refusals, authorization, notifications); unexplained read errors count as tampering."
        case .tamper:
            "Someone outside the run changed the device root (clock, notify, containers, sandboxes, system/); the run stops and is judged TAMPERED/undecided."
        case .tamperScan:
            "The tamper watch looked at the whole device root (first check, end, lost inotify events, scan fallback); normalize drops these lines."
        case .userAction:
            "A move of the pack's workload, recorded before its steps are performed (UserMove: action = the pack's name, e.g. start_session; a .note step adds another), or the harness's open_host_to_settle; checkers judge the app against these."
        case .userRetry:
            "The app died while handling a tap; the user taps again once it is back: the repeat(s) went to its inbox under retrySeq."
        case .userTapLost:
            "A tap the app died while handling is not repeated (the user does not tap again: user.retry; app not relaunched; pack does not retry; repeat died too; or inbox write failed)."
        }
    }
}

extension HistoryEvent {
    /// The kind of a harness line; nil for a process's line or a line a pack added.
    public var harnessLine: HarnessLine? { process == Self.harnessProcessName ? HarnessLine(rawValue: event) : nil }

    public func isHarnessLine(_ line: HarnessLine) -> Bool { process == Self.harnessProcessName && event == line.rawValue }
}
