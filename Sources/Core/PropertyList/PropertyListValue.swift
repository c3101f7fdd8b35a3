import Foundation

/// A property-list value: the types UserDefaults (and so `SharedDefaults`) can hold.
///
/// Typed rather than `Any` so that a suite round-trips exactly (an `Int` stays an `Int`, a `Bool`
/// stays a `Bool`) and so that values can cross threads (`Sendable`).
public enum PropertyListValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case data(Data)
    case date(Date)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    /// Converts a UserDefaults-style `Any` into a property-list value, or nil when the value is not
    /// a property-list type (UserDefaults would raise an exception there; we refuse with an error).
    public init?(any value: Any) {
        switch value {
        case let v as PropertyListValue: self = v
        case let v as Bool: self = .bool(v)
        case let v as String: self = .string(v)
        case let v as Substring: self = .string(String(v))
        case let v as Int: self = .integer(Int64(v))
        case let v as Int64: self = .integer(v)
        case let v as Int32: self = .integer(Int64(v))
        case let v as Int16: self = .integer(Int64(v))
        case let v as Int8: self = .integer(Int64(v))
        case let v as UInt8: self = .integer(Int64(v))
        case let v as UInt16: self = .integer(Int64(v))
        case let v as UInt32: self = .integer(Int64(v))
        case let v as UInt:
            guard let i = Int64(exactly: v) else { return nil }
            self = .integer(i)
        case let v as UInt64:
            guard let i = Int64(exactly: v) else { return nil }
            self = .integer(i)
        case let v as Double: self = .real(v)
        case let v as Float: self = .real(Double(v))
        case let v as Data: self = .data(v)
        case let v as Date: self = .date(v)
        case let v as URL: self = .string(v.absoluteString)  // UserDefaults stores URLs as data; a string is enough here
        case let v as [Any]:
            var out: [PropertyListValue] = []
            out.reserveCapacity(v.count)
            for e in v {
                guard let c = PropertyListValue(any: e) else { return nil }
                out.append(c)
            }
            self = .array(out)
        case let v as [String: Any]:
            var out: [String: PropertyListValue] = [:]
            out.reserveCapacity(v.count)
            for (k, e) in v {
                guard let c = PropertyListValue(any: e) else { return nil }
                out[k] = c
            }
            self = .dictionary(out)
        default:
            return nil
        }
    }

    /// The plain Swift value, as `UserDefaults.object(forKey:)` would hand it out.
    public var anyValue: Any {
        switch self {
        case .string(let v): return v
        case .integer(let v): return Int(truncatingIfNeeded: v)
        case .real(let v): return v
        case .bool(let v): return v
        case .data(let v): return v
        case .date(let v): return v
        case .array(let v): return v.map(\.anyValue)
        case .dictionary(let v): return v.mapValues(\.anyValue)
        }
    }

    // UserDefaults' coercions: bool(forKey:) of an integer 1 is true, of "YES" is true, and so on.
    public var boolValue: Bool? {
        switch self {
        case .bool(let v): return v
        case .integer(let v): return v != 0
        case .real(let v): return v != 0
        case .string(let s):
            switch s.lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: return Int64(s).map { $0 != 0 }
            }
        default: return nil
        }
    }

    public var integerValue: Int? {
        switch self {
        case .integer(let v): return Int(truncatingIfNeeded: v)
        case .real(let v): return v.isFinite && abs(v) < 9.2e18 ? Int(v) : nil
        case .bool(let v): return v ? 1 : 0
        case .string(let s): return Int(s) ?? Double(s).flatMap { $0.isFinite && abs($0) < 9.2e18 ? Int($0) : nil }
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .real(let v): return v
        case .integer(let v): return Double(v)
        case .bool(let v): return v ? 1 : 0
        case .string(let s): return Double(s)
        default: return nil
        }
    }

    public var stringValue: String? {
        switch self {
        case .string(let v): return v
        case .integer(let v): return String(v)
        case .real(let v): return String(v)
        default: return nil
        }
    }
}

extension PropertyListValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
