import AppGroup
import Foundation
import ScreenTimeModel
import OSFiles

/// Apple's `UNUserNotificationCenter` over `system/notifications/` (EMULATED-IOS.md §7.5). The app
/// writes what it asks for (authorization requests, pending requests, categories, removals) and
/// posts `system.notifications.changed`; the OS writes what it decides (the authorization status,
/// the delivered list) and hands the user's responses to the app through its inbox.
///
/// Completion handlers run on a global queue, as Apple's run on a background queue.
open class UNUserNotificationCenter: NSObject, @unchecked Sendable {
    private let device: Result<EmulatedDevice, OSFileError>
    private let lock = NSLock()
    private weak var _delegate: (any UNUserNotificationCenterDelegate)?

    /// How long an authorization prompt waits for the scripted user: an hour of device time,
    /// never more than 10 s of real time.
    @_spi(ScreenTimeHarness) public var answerDeviceSeconds: Double = 3600
    @_spi(ScreenTimeHarness) public var answerWallCapSeconds: Double = 10
    /// How long a delegate may take to call `didReceive`'s completion handler.
    @_spi(ScreenTimeHarness) public var delegateWallCapSeconds: Double = 5

    nonisolated(unsafe) private static var shared: UNUserNotificationCenter?
    private static let sharedLock = NSLock()

    /// Apple's `current()`: the process's one center, on `SCREENTIME_DEVICE_ROOT`.
    open class func current() -> UNUserNotificationCenter {
        // Inside the harness: one per stand-in launch (a process's own memory).
        if let mine = StandInEnvironment.perIncarnation({
            UNUserNotificationCenter(device: Result(catching: { () throws(OSFileError) -> EmulatedDevice in try EmulatedDevice.current() }))
        }) { return mine }
        sharedLock.lock()
        defer { sharedLock.unlock() }
        if let shared { return shared }
        let c = UNUserNotificationCenter(device: Result(catching: { () throws(OSFileError) -> EmulatedDevice in try EmulatedDevice.current() }))
        shared = c
        return c
    }

    private init(device: Result<EmulatedDevice, OSFileError>) { self.device = device }

    /// A center on an explicit device (stand-ins with a context, tests).
    @_spi(ScreenTimeHarness) public convenience init(device: EmulatedDevice) { self.init(device: .success(device)) }

    /// Apple's `delegate` (weak).
    open var delegate: (any UNUserNotificationCenterDelegate)? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return _delegate
        }
        set {
            lock.lock()
            _delegate = newValue
            lock.unlock()
        }
    }

    static func deviceNow() -> Date { (try? EmulatedDevice.current().now()) ?? Date() }
    static func deviceTimeZone() -> TimeZone { (try? EmulatedDevice.current().timeZone) ?? .current }

    private func area(_ path: String = OSPaths.notifications) throws -> OSArea { try device.get().area(path) }

    private func writer() throws -> WriterRecord {
        let d = try device.get()
        return WriterRecord(pid: d.writer.pid, process: d.writer.process)
    }

    private static func later(_ body: @escaping @Sendable () -> Void) { DispatchQueue.global().async(execute: body) }

    // MARK: Authorization

    /// Apple's `requestAuthorization(options:completionHandler:)`. Once the status is decided
    /// (anything but `notDetermined`) it answers from the status without prompting, as iOS does;
    /// otherwise it asks the OS (`authorization-request.json`) and waits, bounded, for the answer.
    open func requestAuthorization(options: UNAuthorizationOptions = [], completionHandler: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        Thread.detachNewThread { [self] in
            do { completionHandler(try self.requestAuthorizationBlocking(options: options), nil) } catch { completionHandler(false, error) }
        }
    }

    open func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool {
        try await withCheckedThrowingContinuation { (k: CheckedContinuation<Bool, any Error>) in
            requestAuthorization(options: options) { granted, error in
                if let error { k.resume(throwing: error) } else { k.resume(returning: granted) }
            }
        }
    }

    @_spi(ScreenTimeHarness) public func requestAuthorizationBlocking(options: UNAuthorizationOptions) throws -> Bool {
        CrashPoints.passNonThrowing("authorization:notifications")  // a prompt is answered, never failed
        let device = try device.get()
        let area = try area()
        let (status, _) = try currentAuthorization()
        if status != .notDetermined { return status.isGranted }
        let request = AuthorizationRequestRecord(id: UUID().uuidString, options: options.names, requestedAt: device.now(), requestedBy: try writer())
        try area.write(request, OSPaths.notificationAuthorizationRequest, post: OSPaths.notificationsChanged)
        let answer = try AnswerWait.wait(
            for: "UNUserNotificationCenter.requestAuthorization(options: \(options.names))", on: device, notification: OSPaths.notificationsChanged,
            deviceSeconds: answerDeviceSeconds, wallCapSeconds: answerWallCapSeconds
        ) { () -> AuthorizationStatusRecord? in
            guard let s = try? area.read(AuthorizationStatusRecord.self, OSPaths.notificationAuthorization), s.answeredRequest == request.id else { return nil }
            return s
        }
        guard let s = UNAuthorizationStatus(name: answer.status) else {
            throw OSFileError.malformed(path: "\(OSPaths.notifications)/\(OSPaths.notificationAuthorization)", reason: "unknown status \(answer.status)")
        }
        return s.isGranted
    }

    private func currentAuthorization() throws -> (UNAuthorizationStatus, UNAuthorizationOptions) {
        guard let r = try area().read(AuthorizationStatusRecord.self, OSPaths.notificationAuthorization) else { return (.notDetermined, []) }
        guard let s = UNAuthorizationStatus(name: r.status) else {
            throw OSFileError.malformed(path: "\(OSPaths.notifications)/\(OSPaths.notificationAuthorization)", reason: "unknown status \(r.status)")
        }
        return (s, UNAuthorizationOptions(names: r.options ?? []))
    }

    open func getNotificationSettings(completionHandler: @escaping @Sendable (UNNotificationSettings) -> Void) {
        let s = notificationSettingsNow()
        Self.later { completionHandler(s) }
    }

    open func notificationSettings() async -> UNNotificationSettings { notificationSettingsNow() }

    private func notificationSettingsNow() -> UNNotificationSettings {
        do {
            let (s, o) = try currentAuthorization()
            return UNNotificationSettings(status: s, granted: o)
        } catch {
            EmulatedDevice.report("UNUserNotificationCenter.notificationSettings", error)
            return UNNotificationSettings(status: .notDetermined, granted: [])
        }
    }

    // MARK: Requests

    /// Apple's `add(_:withCompletionHandler:)`: replaces any pending request with the same
    /// identifier. Allowed whatever the authorization; the OS shows only what is authorized.
    open func add(_ request: UNNotificationRequest, withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        let error: (any Error)?
        do {
            try addNow(request)
            error = nil
        } catch let e {
            error = e
        }
        if let completionHandler { Self.later { completionHandler(error) } }
    }

    open func add(_ request: UNNotificationRequest) async throws { try addNow(request) }

    private func addNow(_ request: UNNotificationRequest) throws {
        try addThrowing(
            identifier: request.identifier, content: try RecordConversion.record(request.content), trigger: try RecordConversion.record(request.trigger))
    }

    /// `add(_:)` of a request already in its record form (a pure machine's effect), with the error.
    @_spi(ScreenTimeHarness) public func addThrowing(
        identifier: String, content: NotificationContentRecord, trigger: NotificationTriggerRecord?
    ) throws {
        try CrashPoints.pass("notification.add:" + identifier)
        guard let file = OSFileName.encode(identifier) else {
            throw UNError(.notificationInvalidNoContent, "identifier \(String(reflecting: String(identifier.prefix(80)))) is empty or too long")
        }
        // The same rule RecordConversion applies to Apple-shaped triggers.
        if let p = trigger.flatMap(NotificationTriggerRules.problem) { throw UNError(.notificationInvalidNoDate, p) }
        let device = try device.get()
        let record = NotificationRequestRecord(identifier: identifier, content: content, trigger: trigger, addedAt: device.now(), addedBy: try writer())
        try area(OSPaths.pendingNotifications).write(record, file, post: OSPaths.notificationsChanged)
    }

    open func getPendingNotificationRequests(completionHandler: @escaping @Sendable ([UNNotificationRequest]) -> Void) {
        let r = pendingNow()
        Self.later { completionHandler(r) }
    }

    open func pendingNotificationRequests() async -> [UNNotificationRequest] { pendingNow() }

    private func pendingNow() -> [UNNotificationRequest] {
        do {
            let (records, errors) = try area(OSPaths.pendingNotifications).readAll(NotificationRequestRecord.self)
            for e in errors { EmulatedDevice.report("UNUserNotificationCenter.pendingNotificationRequests", e) }
            return records.map(\.record).sorted { ($0.addedAt, $0.identifier) < ($1.addedAt, $1.identifier) }.map(RecordConversion.request)
        } catch {
            EmulatedDevice.report("UNUserNotificationCenter.pendingNotificationRequests", error)
            return []
        }
    }

    open func removePendingNotificationRequests(withIdentifiers identifiers: [String]) {
        do {
            try CrashPoints.pass("notifications.remove")
            let a = try area(OSPaths.pendingNotifications)
            for id in identifiers { if let f = OSFileName.encode(id) { a.directory.remove(f) } }
            try a.post(OSPaths.notificationsChanged)
        } catch {
            EmulatedDevice.report("UNUserNotificationCenter.removePendingNotificationRequests", error)
        }
    }

    open func removeAllPendingNotificationRequests() {
        do {
            try CrashPoints.pass("notifications.remove")
            let a = try area(OSPaths.pendingNotifications)
            for f in try a.recordNames() { a.directory.remove(f) }
            try a.post(OSPaths.notificationsChanged)
        } catch {
            EmulatedDevice.report("UNUserNotificationCenter.removeAllPendingNotificationRequests", error)
        }
    }

    // MARK: Delivered

    open func getDeliveredNotifications(completionHandler: @escaping @Sendable ([UNNotification]) -> Void) {
        let d = deliveredNow()
        Self.later { completionHandler(d) }
    }

    open func deliveredNotifications() async -> [UNNotification] { deliveredNow() }

    private func deliveredNow() -> [UNNotification] {
        do {
            let r = try area().read(DeliveredNotificationsRecord.self, OSPaths.deliveredNotifications)
            return (r?.notifications ?? []).map(RecordConversion.notification)
        } catch {
            EmulatedDevice.report("UNUserNotificationCenter.deliveredNotifications", error)
            return []
        }
    }

    /// The delivered list is the OS's: the app files a removal request (`removals/`) it applies.
    open func removeDeliveredNotifications(withIdentifiers identifiers: [String]) { fileRemoval(identifiers, all: false) }

    open func removeAllDeliveredNotifications() { fileRemoval([], all: true) }

    private func fileRemoval(_ ids: [String], all: Bool) {
        do {
            try CrashPoints.pass("notifications.remove")
            let r = NotificationRemovalRecord(delivered: ids, all: all, requestedAt: try device.get().now())
            try area(OSPaths.notificationRemovals).write(r, "\(Int64(r.requestedAt.timeIntervalSince1970 * 1000))-\(UUID().uuidString).json", post: OSPaths.notificationsChanged)
        } catch {
            EmulatedDevice.report("UNUserNotificationCenter.removeDeliveredNotifications", error)
        }
    }

    // MARK: Categories and badge

    open func setNotificationCategories(_ categories: Set<UNNotificationCategory>) {
        do { try setNotificationCategoriesThrowing(categories.map(RecordConversion.record)) } catch {
            EmulatedDevice.report("UNUserNotificationCenter.setNotificationCategories", error)
        }
    }

    /// `setNotificationCategories(_:)` of records, with the error.
    @_spi(ScreenTimeHarness) public func setNotificationCategoriesThrowing(_ categories: [NotificationCategoryRecord]) throws {
        try CrashPoints.pass("notifications.categories")
        let r = NotificationCategoriesRecord(categories: categories.sorted { $0.identifier < $1.identifier })
        try area().write(r, OSPaths.notificationCategories, post: OSPaths.notificationsChanged)
    }

    open func getNotificationCategories(completionHandler: @escaping @Sendable (Set<UNNotificationCategory>) -> Void) {
        let c = categoriesNow()
        Self.later { completionHandler(c) }
    }

    open func notificationCategories() async -> Set<UNNotificationCategory> { categoriesNow() }

    private func categoriesNow() -> Set<UNNotificationCategory> {
        do {
            return Set((try area().read(NotificationCategoriesRecord.self, OSPaths.notificationCategories)?.categories ?? []).map(RecordConversion.category))
        } catch {
            EmulatedDevice.report("UNUserNotificationCenter.notificationCategories", error)
            return []
        }
    }

    /// iOS 16's `setBadgeCount(_:withCompletionHandler:)`.
    open func setBadgeCount(_ newBadgeCount: Int, withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        let error: (any Error)?
        do {
            try setBadgeCountThrowing(newBadgeCount)
            error = nil
        } catch let e {
            error = e
        }
        if let completionHandler { Self.later { completionHandler(error) } }
    }

    /// `setBadgeCount(_:)` with the error.
    @_spi(ScreenTimeHarness) public func setBadgeCountThrowing(_ newBadgeCount: Int) throws {
        try CrashPoints.pass("badge")
        guard newBadgeCount >= 0 else { throw UNError(.badgeInputInvalid, "badge count \(newBadgeCount) is negative") }
        try area().write(BadgeRecord(count: newBadgeCount), OSPaths.badge, post: OSPaths.notificationsChanged)
    }

    // MARK: Responses from the OS

    /// What became of an inbox message offered to `receive(inboxAction:fields:)`.
    @_spi(ScreenTimeHarness) public enum InboxOutcome: Equatable, Sendable {
        /// Not a notification message; the app's own.
        case notNotificationMessage
        /// The delegate got the response and called its completion handler.
        case delivered(identifier: String, actionIdentifier: String)
        /// No delegate was set: the response is lost, as on iOS.
        case noDelegate(identifier: String)
        /// The delegate did not call its completion handler within `delegateWallCapSeconds`.
        case completionNotCalled(identifier: String)
        case malformed(String)
    }

    /// The app run loop hands every inbox message here first: a `notification_response` (the
    /// user tapped a delivered notification or one of its actions) goes to the delegate's
    /// `userNotificationCenter(_:didReceive:withCompletionHandler:)`, waiting (bounded) for the
    /// completion handler. Call it on the thread the app's delegate expects (its main thread).
    @_spi(ScreenTimeHarness) public func receive(inboxAction action: String, fields: [String: String]) -> InboxOutcome {
        guard action == NotificationResponseMessage.action else { return .notNotificationMessage }
        let parsed: (actionIdentifier: String, notification: DeliveredNotificationRecord, userText: String?)
        do { parsed = try NotificationResponseMessage.parse(fields) } catch { return .malformed("\(error)") }
        let notification = RecordConversion.notification(parsed.notification)
        let id = parsed.notification.request.identifier
        let response: UNNotificationResponse =
            parsed.userText.map { UNTextInputNotificationResponse(notification: notification, actionIdentifier: parsed.actionIdentifier, userText: $0) }
            ?? UNNotificationResponse(notification: notification, actionIdentifier: parsed.actionIdentifier)
        guard let delegate else { return .noDelegate(identifier: id) }
        let done = DispatchSemaphore(value: 0)
        delegate.userNotificationCenter(self, didReceive: response) { done.signal() }
        if done.wait(timeout: .now() + delegateWallCapSeconds) == .timedOut { return .completionNotCalled(identifier: id) }
        return .delivered(identifier: id, actionIdentifier: parsed.actionIdentifier)
    }
}
