/// Apple's `DeviceActivityName`: the name an app monitors an activity under.
public struct DeviceActivityName: RawRepresentable, Hashable, Codable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}
