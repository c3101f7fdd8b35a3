// API probe: Apple's unified logging (`import OSLog`) as Screen Time extensions use it
// (docs/FRAMEWORKS-API.md). Only members that compile against this package's OSLog are here; the
// rest are in not-provided.txt.
import OSLog

/// `Logger.init(subsystem:category:)`
func probe_Logger_initSubsystemCategory() {
    let logger = Logger(subsystem: "com.example.app.monitor", category: "monitor")
    _ = logger
}

/// `Logger.init()`
func probe_Logger_init() {
    let logger = Logger()
    _ = logger
}

/// `Logger.init(_:)` (from an `OSLog`)
func probe_Logger_initOSLog() {
    let logger = Logger(OSLog(subsystem: "com.example.app", category: "shield"))
    _ = logger
}

/// `Logger.debug(_:)`
func probe_Logger_debug(_ logger: Logger) {
    logger.debug("interval started")
}

/// `Logger.info(_:)`
func probe_Logger_info(_ logger: Logger, _ minutes: Int) {
    logger.info("threshold reached after \(minutes) minutes")
}

/// `Logger.notice(_:)`
func probe_Logger_notice(_ logger: Logger) {
    logger.notice("shield applied")
}

/// `Logger.log(_:)`
func probe_Logger_log(_ logger: Logger) {
    logger.log("default level")
}

/// `Logger.log(level:_:)`
func probe_Logger_logLevel(_ logger: Logger) {
    logger.log(level: .error, "write failed")
}

/// `Logger.error(_:)`
func probe_Logger_error(_ logger: Logger, _ error: Error) {
    logger.error("startMonitoring failed: \(error.localizedDescription)")
}

/// `Logger.warning(_:)`
func probe_Logger_warning(_ logger: Logger) {
    logger.warning("selection is empty")
}

/// `Logger.fault(_:)`
func probe_Logger_fault(_ logger: Logger) {
    logger.fault("store missing")
}

/// `Logger.critical(_:)`
func probe_Logger_critical(_ logger: Logger) {
    logger.critical("unreachable")
}

/// `Logger.trace(_:)`
func probe_Logger_trace(_ logger: Logger) {
    logger.trace("entering")
}

/// `OSLogPrivacy.public` (in an interpolation)
func probe_OSLogPrivacy_public(_ logger: Logger, _ name: String) {
    logger.info("activity \(name, privacy: .public)")
}

/// `OSLogPrivacy.private`
func probe_OSLogPrivacy_private(_ logger: Logger, _ account: String) {
    logger.info("account \(account, privacy: .private)")
}

/// `OSLogPrivacy.private(mask:)` with `OSLogPrivacy.Mask.hash`
func probe_OSLogPrivacy_privateMaskHash(_ logger: Logger, _ id: String) {
    logger.info("user \(id, privacy: .private(mask: .hash))")
}

/// `OSLogPrivacy.sensitive`
func probe_OSLogPrivacy_sensitive(_ logger: Logger, _ token: String) {
    logger.debug("token \(token, privacy: .sensitive)")
}

/// `OSLogPrivacy.auto`
func probe_OSLogPrivacy_auto(_ logger: Logger, _ value: String) {
    logger.debug("value \(value, privacy: .auto)")
}

/// `OSLogInterpolation.appendInterpolation(_:format:align:privacy:)` (integers, `OSLogIntegerFormatting.hex`)
func probe_OSLogIntegerFormatting_hex(_ logger: Logger, _ flags: Int) {
    logger.debug("flags \(flags, format: .hex)")
}

/// `OSLogFloatFormatting.fixed(precision:)`
func probe_OSLogFloatFormatting_fixed(_ logger: Logger, _ seconds: Double) {
    logger.info("elapsed \(seconds, format: .fixed(precision: 2))")
}

/// `OSLogStringAlignment.left(columns:)`
func probe_OSLogStringAlignment_left(_ logger: Logger, _ name: String) {
    logger.info("\(name, align: .left(columns: 20))|")
}

/// `OSLogInterpolation` (`Bool`, `Date`, optional and `Error` values)
func probe_OSLogInterpolation_values(_ logger: Logger, _ flag: Bool, _ date: Date, _ maybe: Int?, _ error: Error) {
    logger.info("flag \(flag) at \(date) maybe \(String(describing: maybe)) error \(error)")
}

/// `OSLog.init(subsystem:category:)`
func probe_OSLog_init() {
    let log = OSLog(subsystem: "com.example.app", category: "defaults")
    _ = log
}

/// `OSLog.default`, `OSLog.disabled`
func probe_OSLog_defaultDisabled() {
    _ = (OSLog.default, OSLog.disabled)
}

/// `OSLog.isEnabled(type:)`
func probe_OSLog_isEnabled(_ log: OSLog) {
    _ = log.isEnabled(type: .debug)
}

/// `OSLogType.default`, `.info`, `.debug`, `.error`, `.fault`
func probe_OSLogType_cases() {
    let types: [OSLogType] = [.default, .info, .debug, .error, .fault]
    _ = types
}

/// `os_log(_:log:type:_:)` (a `StaticString` format with `%{public}@` and `%d`)
func probe_os_log_format(_ name: String, _ count: Int) {
    let log = OSLog(subsystem: "com.example.app", category: "monitor")
    os_log("activity %{public}@ count %d", log: log, type: .info, name, count)
}

/// `os_log(_:log:type:_:)` (defaults: `OSLog.default`, `.default`)
func probe_os_log_plain() {
    os_log("interval ended")
}

/// `os_log(_:dso:log:_:_:)` (the type first)
func probe_os_log_typeFirst() {
    os_log(.error, log: .default, "failed: %@", "reason")
}

/// `os_log(_:_:)` with an interpolated message (iOS 14)
func probe_os_log_interpolated(_ count: Int) {
    os_log(.info, "count \(count)")
}
