/// One thing the harness does as the user, at a device time measured from the clock's start.
public struct PlannedUserAction: Sendable, Equatable, Codable {
    public var atDeviceOffsetSeconds: Double
    public var action: UserAction

    public init(atDeviceOffsetSeconds: Double, action: UserAction) {
        self.atDeviceOffsetSeconds = atDeviceOffsetSeconds
        self.action = action
    }
}

/// The user's side of seed 000's MethodChannel API, plus the two ways of breaking a pledge.
public enum UserAction: Sendable, Equatable, Codable {
    /// `presentAppPicker`: the selection the host saves to the App Group.
    case selectApps(apps: [String])
    /// `startNativeSession(sessionId:durationMinutes:)`.
    case startSession(sessionId: String, durationMinutes: Int)
    /// The user opens a shielded app during the session (DeviceActivity threshold).
    case openBlockedApp(app: String, sessionId: String)
    /// The user taps a button on the shield (ShieldAction extension).
    case pressShieldButton(app: String, sessionId: String)
    /// `stopNativeSession(sessionId:)` by hand, before the session's end.
    case stopSession(sessionId: String)

    /// The session this action belongs to (nil for `selectApps`).
    public var sessionId: String? {
        switch self {
        case .selectApps: nil
        case .startSession(let id, _), .openBlockedApp(_, let id), .pressShieldButton(_, let id), .stopSession(let id): id
        }
    }

    public var isViolation: Bool {
        switch self {
        case .openBlockedApp, .pressShieldButton: true
        default: false
        }
    }

    // A flat `{"kind": ..., fields}` object: readable in schedule.json and easy for other tools,
    // unlike the synthesized `{"startSession": {"sessionId": ...}}` nesting.
    private enum CodingKeys: String, CodingKey {
        case kind, apps, sessionId, durationMinutes, app
    }

    private enum Kind: String, Codable {
        case selectApps, startSession, openBlockedApp, pressShieldButton, stopSession
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .kind) {
        case .selectApps:
            self = .selectApps(apps: try container.decode([String].self, forKey: .apps))
        case .startSession:
            self = .startSession(
                sessionId: try container.decode(String.self, forKey: .sessionId),
                durationMinutes: try container.decode(Int.self, forKey: .durationMinutes)
            )
        case .openBlockedApp:
            self = .openBlockedApp(
                app: try container.decode(String.self, forKey: .app),
                sessionId: try container.decode(String.self, forKey: .sessionId)
            )
        case .pressShieldButton:
            self = .pressShieldButton(
                app: try container.decode(String.self, forKey: .app),
                sessionId: try container.decode(String.self, forKey: .sessionId)
            )
        case .stopSession:
            self = .stopSession(sessionId: try container.decode(String.self, forKey: .sessionId))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .selectApps(let apps):
            try container.encode(Kind.selectApps, forKey: .kind)
            try container.encode(apps, forKey: .apps)
        case .startSession(let sessionId, let durationMinutes):
            try container.encode(Kind.startSession, forKey: .kind)
            try container.encode(sessionId, forKey: .sessionId)
            try container.encode(durationMinutes, forKey: .durationMinutes)
        case .openBlockedApp(let app, let sessionId):
            try container.encode(Kind.openBlockedApp, forKey: .kind)
            try container.encode(app, forKey: .app)
            try container.encode(sessionId, forKey: .sessionId)
        case .pressShieldButton(let app, let sessionId):
            try container.encode(Kind.pressShieldButton, forKey: .kind)
            try container.encode(app, forKey: .app)
            try container.encode(sessionId, forKey: .sessionId)
        case .stopSession(let sessionId):
            try container.encode(Kind.stopSession, forKey: .kind)
            try container.encode(sessionId, forKey: .sessionId)
        }
    }
}
