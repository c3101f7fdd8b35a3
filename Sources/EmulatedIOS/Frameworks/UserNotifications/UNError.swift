import Foundation

/// Apple's `UNError`, with the codes the emulated center can produce.
public struct UNError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    public enum Code: Int, Sendable {
        case notificationsNotAllowed = 1
        case notificationInvalidNoDate = 1400
        case notificationInvalidNoContent = 1401
        case badgeInputInvalid = 1600
    }

    public let code: Code
    /// What exactly was wrong.
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "UNError \(code) (\(code.rawValue)): \(reason)" }
    public var errorDescription: String? { description }
}
