/// What `resolveSession` settles a session as (seed: `resolution: 'FAILURE'`). Raw values are the
/// server's wire values.
public enum Resolution: String, Sendable, Equatable, Codable, CaseIterable {
    case success = "SUCCESS"
    case failure = "FAILURE"
}
