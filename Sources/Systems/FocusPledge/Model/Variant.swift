/// Which reading of seed 000 a machine runs, chosen at init.
///
/// - `asWritten`: the seed's text and code literally, bugs included; nothing fixed.
/// - `hardened`: a correct protocol over the same App Group, keys and server.
public enum Variant: String, Sendable, CaseIterable, Codable {
    case asWritten = "as-written"
    case hardened
}
