// Apple's unified logging (`import OSLog`, `import os`): `Logger(subsystem:category:)` and
// `os_log`. On iOS a developer reads these lines in Console; here each one is a line of the
// process's trace (`os_log` with level, subsystem, category and message, EMULATED-IOS.md §7.11), so it
// shows in the run's history and on the process's lane of report.html. A process the harness did
// not start (no sink installed) prints them to stderr.
@_exported import AppGroupFoundation
import AppGroup

/// Apple's `OSLogType`.
public struct OSLogType: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let `default` = OSLogType(0x00)
    public static let info = OSLogType(0x01)
    public static let debug = OSLogType(0x02)
    public static let error = OSLogType(0x10)
    public static let fault = OSLogType(0x11)

    /// The level's name in the trace.
    public var name: String {
        switch self {
        case .info: "info"
        case .debug: "debug"
        case .error: "error"
        case .fault: "fault"
        default: "default"
        }
    }
}

/// Apple's `OSLogPrivacy`. The harness records every value as written: a test device has no
/// secrets to redact, and a redacted value would hide what a checker or a developer needs.
public struct OSLogPrivacy: Sendable, Equatable {
    let kind: UInt8
    public static let auto = OSLogPrivacy(kind: 0)
    public static let `public` = OSLogPrivacy(kind: 1)
    public static let `private` = OSLogPrivacy(kind: 2)
    public static let sensitive = OSLogPrivacy(kind: 3)
    public static func `private`(mask: OSLogPrivacy.Mask) -> OSLogPrivacy { .private }
    public static func sensitive(mask: OSLogPrivacy.Mask) -> OSLogPrivacy { .sensitive }
    public struct Mask: Sendable, Equatable {
        public static let hash = Mask()
        public static let none = Mask()
    }
}

/// Apple's `OSLogIntegerFormatting`, `OSLogFloatFormatting`, `OSLogStringAlignment`: accepted so
/// that interpolations compile; values are written in Swift's default form.
public struct OSLogIntegerFormatting: Sendable {
    public static let decimal = OSLogIntegerFormatting()
    public static let hex = OSLogIntegerFormatting()
    public static let octal = OSLogIntegerFormatting()
    public static func decimal(explicitPositiveSign: Bool = false, minDigits: Int? = nil) -> OSLogIntegerFormatting { .decimal }
    public static func hex(explicitPositiveSign: Bool = false, includePrefix: Bool = false, uppercase: Bool = false, minDigits: Int? = nil)
        -> OSLogIntegerFormatting
    { .hex }
}
public struct OSLogFloatFormatting: Sendable {
    public static let fixed = OSLogFloatFormatting()
    public static let exponential = OSLogFloatFormatting()
    public static let hybrid = OSLogFloatFormatting()
    public static func fixed(precision: Int, explicitPositiveSign: Bool = false, uppercase: Bool = false) -> OSLogFloatFormatting { .fixed }
    public static func fixed(explicitPositiveSign: Bool = false, uppercase: Bool = false) -> OSLogFloatFormatting { .fixed }
}
public struct OSLogStringAlignment: Sendable {
    public static let none = OSLogStringAlignment()
    public static func left(columns: Int) -> OSLogStringAlignment { .none }
    public static func right(columns: Int) -> OSLogStringAlignment { .none }
}

/// Apple's `OSLogMessage`: a string literal with interpolations (`"\(x, privacy: .public)"`).
public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral, Sendable {
    public let text: String

    public init(stringLiteral value: String) { text = value }
    public init(stringInterpolation: OSLogInterpolation) { text = stringInterpolation.text }

    public struct OSLogInterpolation: StringInterpolationProtocol, Sendable {
        var text = ""
        public init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity + 8 * interpolationCount) }
        public mutating func appendLiteral(_ literal: String) { text += literal }
        public mutating func appendInterpolation<T>(_ value: @autoclosure () -> T, privacy: OSLogPrivacy = .auto) {
            text += String(describing: value())
        }
        public mutating func appendInterpolation<T: BinaryInteger>(
            _ value: @autoclosure () -> T, format: OSLogIntegerFormatting = .decimal, align: OSLogStringAlignment = .none,
            privacy: OSLogPrivacy = .auto
        ) { text += String(value()) }
        public mutating func appendInterpolation<T: BinaryFloatingPoint & CustomStringConvertible>(
            _ value: @autoclosure () -> T, format: OSLogFloatFormatting, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
        ) { text += value().description }
        public mutating func appendInterpolation(_ value: @autoclosure () -> String, align: OSLogStringAlignment, privacy: OSLogPrivacy = .auto) {
            text += value()
        }
        public mutating func appendInterpolation(_ value: @autoclosure () -> Any.Type, privacy: OSLogPrivacy = .auto) {
            text += String(describing: value())
        }
    }
}

/// Where log lines go: the stand-in runtime installs the process's trace here (the frameworks
/// sit below it and know no trace).
public enum OSLogSink {
    /// Told of every line: level, subsystem, category, message. Inside the harness, each stand-in
    /// launch's own (its trace).
    public static var handler: (@Sendable (_ level: String, _ subsystem: String, _ category: String, _ message: String) -> Void)? {
        get { handlerValue.value }
        set { handlerValue.value = newValue }
    }
    private static let handlerValue = PerLaunch<(@Sendable (_ level: String, _ subsystem: String, _ category: String, _ message: String) -> Void)?>(nil)

    static func emit(_ type: OSLogType, _ subsystem: String, _ category: String, _ message: String) {
        if let handler {
            handler(type.name, subsystem, category, message)
        } else {
            FileHandle.standardError.write(Data("[\(type.name)] \(subsystem)/\(category): \(message)\n".utf8))
        }
    }
}

/// Apple's `OSLog`: a subsystem and category to log under (`os_log(…, log: log)`).
public final class OSLog: Sendable {
    public let subsystem: String
    public let category: String

    public init(subsystem: String, category: String) {
        self.subsystem = subsystem
        self.category = category
    }

    public static let `default` = OSLog(subsystem: "", category: "")
    public static let disabled = OSLog(subsystem: "", category: "disabled")

    /// Apple's `isEnabled(type:)`: every level is recorded here.
    public func isEnabled(type: OSLogType) -> Bool { self !== OSLog.disabled }
}

/// Apple's `Logger` (iOS 14+).
public struct Logger: Sendable {
    public let subsystem: String
    public let category: String

    public init(subsystem: String, category: String) {
        self.subsystem = subsystem
        self.category = category
    }

    public init(_ log: OSLog) { self.init(subsystem: log.subsystem, category: log.category) }

    /// `Logger()`: the default subsystem.
    public init() { self.init(subsystem: "", category: "") }

    public func log(_ message: OSLogMessage) { OSLogSink.emit(.default, subsystem, category, message.text) }
    public func log(level: OSLogType, _ message: OSLogMessage) { OSLogSink.emit(level, subsystem, category, message.text) }
    public func trace(_ message: OSLogMessage) { OSLogSink.emit(.debug, subsystem, category, message.text) }
    public func debug(_ message: OSLogMessage) { OSLogSink.emit(.debug, subsystem, category, message.text) }
    public func info(_ message: OSLogMessage) { OSLogSink.emit(.info, subsystem, category, message.text) }
    public func notice(_ message: OSLogMessage) { OSLogSink.emit(.default, subsystem, category, message.text) }
    public func warning(_ message: OSLogMessage) { OSLogSink.emit(.error, subsystem, category, message.text) }
    public func error(_ message: OSLogMessage) { OSLogSink.emit(.error, subsystem, category, message.text) }
    public func critical(_ message: OSLogMessage) { OSLogSink.emit(.fault, subsystem, category, message.text) }
    public func fault(_ message: OSLogMessage) { OSLogSink.emit(.fault, subsystem, category, message.text) }
}

/// Apple's `os_log(_:log:type:_:)`: a printf-style format with `%@`, `%d`, `%{public}@`, ….
public func os_log(_ message: StaticString, log: OSLog = .default, type: OSLogType = .default, _ args: CVarArg...) {
    os_log(type, log: log, message, args)
}

/// Apple's `os_log(_:dso:log:_:_:)` with the type first.
public func os_log(_ type: OSLogType, log: OSLog = .default, _ message: StaticString, _ args: CVarArg...) {
    os_log(type, log: log, message, args)
}

/// Apple's `os_log(_:)` of iOS 14 with an interpolated message.
public func os_log(_ message: OSLogMessage) { OSLogSink.emit(.default, "", "", message.text) }
public func os_log(_ type: OSLogType, log: OSLog = .default, _ message: OSLogMessage) {
    OSLogSink.emit(type, log.subsystem, log.category, message.text)
}

func os_log(_ type: OSLogType, log: OSLog, _ message: StaticString, _ args: [CVarArg]) {
    // `%{public}@` and `%{private}d` are printf's `%@` and `%d` with a privacy tag.
    var format = message.description
    for tag in ["{public}", "{private}", "{sensitive}"] { format = format.replacingOccurrences(of: "%" + tag, with: "%") }
    OSLogSink.emit(type, log.subsystem, log.category, String(format: format, arguments: args))
}
