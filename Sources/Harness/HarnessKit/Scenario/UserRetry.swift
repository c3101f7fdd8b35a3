import Foundation

/// Whether the scripted user taps again when the app died while handling their tap
/// (InterruptedTaps.swift, EMULATED-IOS.md §7.7). A user who taps again redoes what a relaunched
/// app may have forgotten — and so hides that bug; a user who does not loses the tap. Real users
/// do both, so it is the scenario's choice (`user.retry`), the pack's default
/// (`SystemDescriptor.userRetry`, said why in its README) when the scenario is silent, and
/// `harness explore` tries a kill point both ways when the user's choice came into play.
public enum UserRetry: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Taps again, once, as soon as the app is back (the tap, or the pack's `repeatTaps`).
    case always
    /// Never taps again: the tap is lost (`user_tap_lost`).
    case never
    /// Taps again with this probability (0 < p < 1), drawn per interrupted tap from the run's seed
    /// and the tap's number alone, so a run replays exactly.
    case probability(Double)

    /// `always`, `never` or a probability strictly between 0 and 1 (`0.5`); nil otherwise.
    public init?(_ text: String) {
        switch text {
        case "always": self = .always
        case "never": self = .never
        default:
            guard let p = Double(text), p > 0, p < 1 else { return nil }
            self = .probability(p)
        }
    }

    public var description: String {
        switch self {
        case .always: "always"
        case .never: "never"
        case .probability(let p): String(p)
        }
    }

    /// What a scenario's `user.retry` or `--user-retry` may say.
    public static let accepted = "always, never, or a probability between 0 and 1 exclusive (e.g. 0.5)"

    /// Whether the user taps again after the app died in tap `seq` of a run of `seed`. The draw
    /// depends on the seed and the tap alone (SplitMix64 of both): no other stream moves with it.
    public func retries(seed: UInt64, tap seq: Int) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .probability(let p):
            var z = seed &+ 0x9E37_79B9_7F4A_7C15 &* (UInt64(truncatingIfNeeded: seq) &+ 1)
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return Double(z >> 11) / Double(1 << 53) < p
        }
    }

    /// The opposite choice, for trying a kill point the other way (`harness explore`): a user who
    /// did tap again does not; one who did not, does.
    public var otherWay: UserRetry { self == .never ? .always : .never }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let retry = UserRetry(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "user.retry: '\(text)' is not \(Self.accepted)"))
        }
        self = retry
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
