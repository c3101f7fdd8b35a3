import Foundation

/// A request for an answer from the (scripted) user, written by the app:
/// `system/authorization/familycontrols-request.json` or
/// `system/notifications/authorization-request.json`, then a post of the area's notification.
/// The OS answers by writing the status file with `answeredRequest` = this `id`.
public struct AuthorizationRequestRecord: Codable, Hashable, Sendable {
    public static let currentVersion = 1
    public var version: Int
    /// Random per request; the answer names it.
    public var id: String
    /// FamilyControls: `individual` or `child`. Notifications: the options (`alert`, `badge`, `sound`, …).
    public var member: String?
    public var options: [String]?
    public var requestedAt: Date
    public var requestedBy: WriterRecord

    public init(id: String, member: String? = nil, options: [String]? = nil, requestedAt: Date, requestedBy: WriterRecord) {
        self.version = Self.currentVersion
        self.id = id
        self.member = member
        self.options = options
        self.requestedAt = requestedAt
        self.requestedBy = requestedBy
    }
}

/// The OS's answer and the current status: `system/authorization/familycontrols.json`
/// (`notDetermined` | `denied` | `approved`) or `system/notifications/authorization.json`
/// (`notDetermined` | `denied` | `authorized` | `provisional` | `ephemeral`). Absent = not determined.
public struct AuthorizationStatusRecord: Codable, Hashable, Sendable {
    public static let currentVersion = 1
    public var version: Int
    public var status: String
    /// The request this status answers, if it answers one.
    public var answeredRequest: String?
    /// Notifications: the granted options.
    public var options: [String]?
    public var writtenAt: Date

    public init(status: String, answeredRequest: String? = nil, options: [String]? = nil, writtenAt: Date) {
        self.version = Self.currentVersion
        self.status = status
        self.answeredRequest = answeredRequest
        self.options = options
        self.writtenAt = writtenAt
    }
}
