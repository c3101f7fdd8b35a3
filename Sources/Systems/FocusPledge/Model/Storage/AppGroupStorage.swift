import PropertyList
import SystemKit
import Foundation

/// The seed's `AppGroupStorage` class as pure functions: reads take a snapshot of the suite,
/// writes return the `setDefaults` effect that the seed's method would perform.
///
/// Reads use UserDefaults' coercions (`PropertyListValue.boolValue` etc.), as the seed reads with
/// `bool(forKey:)`, `string(forKey:)`, `double(forKey:)`.
public enum AppGroupStorage {
    public typealias Snapshot = [String: PropertyListValue]

    /// The seed's `checkSessionFailed()` tuple, plus the session a hardened failure record names.
    public struct FailureStatus: Sendable, Equatable {
        public var failed: Bool
        public var reason: String?
        public var timestamp: Date?
        public var appBundleId: String?
        /// Hardened only: whose failure this is (nil in as-written, which never writes it).
        public var sessionId: String?

        /// Seed (Dart): `nativeEvidence: {'timestamp': timestamp, 'appBundleId': appBundleId}`;
        /// the Swift side returns `status.timestamp?.timeIntervalSince1970 ?? 0`, so a missing
        /// timestamp is "0". A nil bundle id is left out (a `[String: String]` has no null).
        public var nativeEvidence: [String: String] {
            var evidence = ["timestamp": String(timestamp?.timeIntervalSince1970 ?? 0)]
            if let appBundleId { evidence["appBundleId"] = appBundleId }
            return evidence
        }
    }

    /// What the suite says about the active session.
    public struct ActiveSessionRecord: Sendable, Equatable {
        public var sessionId: String
        public var startTime: Date?
        public var endTime: Date?
        /// Hardened only: the monitor extension saw this session's interval end.
        public var ended: Bool
    }

    // MARK: Reads

    /// Seed: `getActiveSessionId()`. hardened's one-key record wins (as-written never writes it).
    public static func activeSessionId(_ store: Snapshot) -> String? {
        if let record = decode(SessionRecord.self, store[FocusPledgeKeys.sessionRecord]) { return record.sessionId }
        return store[FocusPledgeKeys.activeSessionId]?.stringValue
    }

    public static func activeSession(_ store: Snapshot) -> ActiveSessionRecord? {
        let ended = store[FocusPledgeKeys.sessionEnded]?.stringValue
        if let record = decode(SessionRecord.self, store[FocusPledgeKeys.sessionRecord]) {
            return ActiveSessionRecord(
                sessionId: record.sessionId, startTime: Date(timeIntervalSince1970: record.startTime),
                endTime: Date(timeIntervalSince1970: record.endTime), ended: ended == record.sessionId)
        }
        guard let id = store[FocusPledgeKeys.activeSessionId]?.stringValue else { return nil }
        return ActiveSessionRecord(
            sessionId: id,
            startTime: time(store, FocusPledgeKeys.sessionStartTime),
            endTime: time(store, FocusPledgeKeys.sessionEndTime),
            ended: ended == id
        )
    }

    /// Seed: `checkSessionFailed()`. hardened's one-key failure record wins (as-written never writes it).
    public static func checkSessionFailed(_ store: Snapshot) -> FailureStatus {
        if let record = decode(FailureRecord.self, store[FocusPledgeKeys.failureRecord]) {
            return FailureStatus(
                failed: true, reason: record.reason, timestamp: Date(timeIntervalSince1970: record.timestamp),
                appBundleId: record.appBundleId, sessionId: record.sessionId)
        }
        return FailureStatus(
            failed: store[FocusPledgeKeys.sessionFailed]?.boolValue ?? false,
            reason: store[FocusPledgeKeys.failureReason]?.stringValue,
            timestamp: time(store, FocusPledgeKeys.failureTimestamp),
            appBundleId: store[FocusPledgeKeys.failureAppBundleId]?.stringValue,
            sessionId: nil
        )
    }

    /// hardened's active session under one key (`FocusPledgeKeys.sessionRecord`).
    struct SessionRecord: Codable, Equatable {
        var sessionId: String
        var startTime: Double
        var endTime: Double
    }

    /// hardened's failure under one key (`FocusPledgeKeys.failureRecord`).
    struct FailureRecord: Codable, Equatable {
        var sessionId: String
        var reason: String
        var timestamp: Double
        var appBundleId: String?
    }

    static func decode<T: Decodable>(_ type: T.Type, _ value: PropertyListValue?) -> T? {
        guard case .data(let data)? = value else { return nil }
        return DecodeMemo.shared.decode(type, data)
    }

    /// The last value decoded per record type, by its bytes: the host reads the same one-key
    /// records at every poll (every 5 device seconds), and decoding them was ~1.3 % of a
    /// virtual-time day's CPU. A pure function's answer, remembered: same bytes, same record.
    final class DecodeMemo: @unchecked Sendable {
        static let shared = DecodeMemo()
        private let lock = NSLock()
        private var last: [ObjectIdentifier: (data: Data, value: Any?)] = [:]

        func decode<T: Decodable>(_ type: T.Type, _ data: Data) -> T? {
            let key = ObjectIdentifier(type)
            lock.lock()
            if let hit = last[key], hit.data == data {
                lock.unlock()
                return hit.value as? T
            }
            lock.unlock()
            let value = try? JSONDecoder().decode(type, from: data)
            lock.lock()
            last[key] = (data, value)
            lock.unlock()
            return value
        }
    }

    static func encoded<T: Encodable>(_ value: T) -> PropertyListValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Records of strings, doubles and optionals encode without failure.
        return .data((try? encoder.encode(value)) ?? Data("{}".utf8))
    }

    /// Seed: `getBlockedAppsTokens()` + unarchiving. Our "tokens" are bundle ids, stored as a JSON
    /// array (the seed archives a `FamilyActivitySelection`). nil = missing or undecodable.
    public static func blockedApps(_ store: Snapshot) -> [String]? {
        guard case .data(let data)? = store[FocusPledgeKeys.blockedAppsTokens] else { return nil }
        return try? JSONDecoder().decode([String].self, from: data)
    }

    /// Seed's `getSessionEndTime()` rule: `timestamp > 0` else nil.
    static func time(_ store: Snapshot, _ key: String) -> Date? {
        guard let seconds = store[key]?.doubleValue, seconds > 0 else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Hardened: the outbox (`focuspledge_unsettled`); missing or undecodable = empty.
    public static func unsettled(_ store: Snapshot) -> [PendingSettlement] {
        guard case .data(let data)? = store[FocusPledgeKeys.unsettled] else { return [] }
        return (try? JSONDecoder().decode([PendingSettlement].self, from: data)) ?? []
    }

    // MARK: Writes

    /// The write of the outbox as `DefaultsWrite` (removed when empty), to go in an atomic write.
    public static func unsettledWrite(_ outbox: [PendingSettlement]) -> DefaultsWrite {
        guard !outbox.isEmpty else { return .remove(FocusPledgeKeys.unsettled) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding strings and string dictionaries cannot fail.
        let data = (try? encoder.encode(outbox)) ?? Data("[]".utf8)
        return .set(FocusPledgeKeys.unsettled, .data(data))
    }

    /// Hardened: a session is concluded — it joins the outbox, THEN stops being the active
    /// session, then its failure record and end marker go: four one-key writes (iOS has no multi-key atomic
    /// write). A kill before the first leaves the active session (the relaunch concludes it
    /// again); between them, a session both active and in the outbox, which the relaunch finishes
    /// moving (`hardenedReconcile`); a failure record or end marker left behind names a session no
    /// longer active and is ignored.
    public static func concludeSession(outbox: [PendingSettlement]) -> [Effect] {
        [
            .setDefaults([unsettledWrite(outbox)], atomic: true),
            .setDefaults([.remove(FocusPledgeKeys.sessionRecord)], atomic: true),
            .setDefaults([.remove(FocusPledgeKeys.failureRecord)], atomic: true),
            .setDefaults([.remove(FocusPledgeKeys.sessionEnded)], atomic: true),
        ]
    }

    /// Seed: `saveBlockedAppsTokens(_:)` — one key, so atomic either way.
    public static func saveBlockedAppsTokens(_ bundleIds: [String]) -> Effect {
        // Encoding an array of strings cannot fail.
        let data = (try? JSONEncoder().encode(bundleIds)) ?? Data("[]".utf8)
        return .setDefaults([.set(FocusPledgeKeys.blockedAppsTokens, .data(data))], atomic: true)
    }

    /// Seed: `setActiveSession(id:startTime:endTime:)`.
    ///
    /// as-written: four separate sets in the seed's order, and the previous session's failure
    /// reason, timestamp and bundle id are NOT cleared. hardened: the whole session under one key
    /// (`sessionRecord`); a previous session's failure record and end marker name that session
    /// and are ignored, so nothing needs clearing.
    public static func setActiveSession(id: String, startTime: Date, endTime: Date, variant: Variant) -> Effect {
        switch variant {
        case .asWritten:
            return .setDefaults([
                .set(FocusPledgeKeys.activeSessionId, .string(id)),
                .set(FocusPledgeKeys.sessionStartTime, .real(startTime.timeIntervalSince1970)),
                .set(FocusPledgeKeys.sessionEndTime, .real(endTime.timeIntervalSince1970)),
                .set(FocusPledgeKeys.sessionFailed, .bool(false)),
            ], atomic: false)
        case .hardened:
            let record = SessionRecord(
                sessionId: id, startTime: startTime.timeIntervalSince1970, endTime: endTime.timeIntervalSince1970)
            return .setDefaults([.set(FocusPledgeKeys.sessionRecord, encoded(record))], atomic: true)
        }
    }

    /// Seed: `clearActiveSession()` — seven separate removes in its order (as-written only; hardened
    /// concludes with `concludeSession`). The blocked-apps selection stays.
    public static func clearActiveSession() -> Effect {
        .setDefaults([
            .remove(FocusPledgeKeys.activeSessionId),
            .remove(FocusPledgeKeys.sessionStartTime),
            .remove(FocusPledgeKeys.sessionEndTime),
            .remove(FocusPledgeKeys.sessionFailed),
            .remove(FocusPledgeKeys.failureReason),
            .remove(FocusPledgeKeys.failureTimestamp),
            .remove(FocusPledgeKeys.failureAppBundleId),
        ], atomic: false)
    }

    /// Seed: `markSessionFailed(reason:appBundleId:)` — as-written: separate sets, `failed = true`
    /// FIRST, then reason, timestamp, and the bundle id only when non-nil (so a stale one stays).
    /// hardened: the whole failure, bound to `sessionId`, under one key (`failureRecord`).
    public static func markSessionFailed(
        reason: String, appBundleId: String?, now: Date, variant: Variant, sessionId: String?
    ) -> Effect {
        switch variant {
        case .asWritten:
            var writes: [DefaultsWrite] = [
                .set(FocusPledgeKeys.sessionFailed, .bool(true)),
                .set(FocusPledgeKeys.failureReason, .string(reason)),
                // Seed: `Date().timeIntervalSince1970` — the extension's clock, i.e. the event's `now`.
                .set(FocusPledgeKeys.failureTimestamp, .real(now.timeIntervalSince1970)),
            ]
            if let appBundleId { writes.append(.set(FocusPledgeKeys.failureAppBundleId, .string(appBundleId))) }
            return .setDefaults(writes, atomic: false)
        case .hardened:
            let record = FailureRecord(
                sessionId: sessionId ?? "", reason: reason, timestamp: now.timeIntervalSince1970, appBundleId: appBundleId)
            return .setDefaults([.set(FocusPledgeKeys.failureRecord, encoded(record))], atomic: true)
        }
    }

    /// What every extension does on a violation (seed: `markSessionFailed(reason: "app_opened", …)`).
    /// as-written: the seed's writes and nothing else — the model of the seed's Swift, which is
    /// what the as-written processes run (Sources/Systems/SeedCode/Seed000); it posts nothing and traces
    /// nothing. hardened: the failure record, the Darwin notification (A2) and a `failure_recorded`
    /// trace, for the monitor, the shield-action and the shield-configuration extension.
    public static func recordViolation(appBundleId: String?, now: Date, variant: Variant, sessionId: String?) -> [Effect] {
        let write = markSessionFailed(
            reason: FocusPledgeKeys.appOpenedReason, appBundleId: appBundleId, now: now, variant: variant, sessionId: sessionId)
        guard variant == .hardened else { return [write] }
        var fields = ["reason": FocusPledgeKeys.appOpenedReason]
        if let appBundleId { fields["appBundleId"] = appBundleId }
        if let sessionId { fields["sessionId"] = sessionId }
        return [write, .postNotification(FocusPledgeKeys.failureNotification), .trace("failure_recorded", fields)]
    }

    /// Hardened: marks `sessionId`'s interval as ended.
    public static func markSessionEnded(sessionId: String) -> Effect {
        .setDefaults([.set(FocusPledgeKeys.sessionEnded, .string(sessionId))], atomic: true)
    }

    /// hardened: how long after a session's end a violation is still recorded, and its SUCCESS
    /// waits (README H6). iOS may run an extension's call late — its process descheduled, a
    /// delivery delayed — while the shield it is about was shown during the session. Five minutes
    /// covers the nemesis's longest stop (250 ms at 900x = 225 device s).
    public static let lateCallbackGraceSeconds: Double = 300

    /// Hardened extensions record a failure only for the active session, once, and only while its
    /// interval runs or within `lateCallbackGraceSeconds` after its end (the host stops enforcing
    /// at the end, so no shield is shown then). Returns why a failure must be ignored, or nil to record it.
    static func reasonToIgnoreFailure(of sessionId: String, now: Date, store: Snapshot) -> String? {
        guard let active = activeSession(store) else { return "no_active_session" }
        guard active.sessionId == sessionId else { return "not_the_active_session" }
        let status = checkSessionFailed(store)
        if status.failed && status.sessionId == sessionId { return "already_failed" }
        if let start = active.startTime, now < start { return "before_session_start" }
        if let end = active.endTime, now >= end.addingTimeInterval(lateCallbackGraceSeconds) { return "after_session_end" }
        if active.ended && active.endTime == nil { return "session_ended" }
        return nil
    }
}
