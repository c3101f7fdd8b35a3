import Foundation

/// The one JSON dialect of `system/` files: sorted keys (stable bytes for tests and diffs), dates
/// as device unix seconds (the clock file's unit, PROTOCOL.md §2).
public enum OSJSON {
    public static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .secondsSince1970
        return e
    }

    public static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .secondsSince1970
        return d
    }

    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] { Array(try encoder().encode(value)) }

    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try decoder().decode(type, from: Data(bytes))
    }
}

/// Who wrote a record: the process's pid and its role name (the harness's process name, e.g.
/// `host-app`, or the executable's name when the harness did not start it).
public struct WriterRecord: Codable, Equatable, Hashable, Sendable {
    public var pid: Int32
    public var process: String

    public init(pid: Int32, process: String) {
        self.pid = pid
        self.process = process
    }
}
