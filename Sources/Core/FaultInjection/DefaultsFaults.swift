import DeviceProtocol
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Field faults of shared defaults that a harness turns on for a process through its environment
/// (`SCREENTIME_DEFAULTS_FAULTS`, PROTOCOL.md §3, EMULATED-IOS.md §10.5), each in a device-time window:
///
/// * `stale <seconds> <from> <to>`: a reader that has the suite cached keeps serving that cache
///   for `seconds` of device time after it first sees the suite changed (UserDefaults in an App
///   Group: "other processes may read stale values until they re-sync"). Writes are never stale.
/// * `torn <from> <to> <token> <max>`: a multi-key write (`setValues`, an `update` changing two or
///   more keys) lands its first key (in key order), then the process SIGKILLs itself — a multi-key
///   write interrupted between keys. At most `max` times per run over every process, counted by
///   claim files `<root>/system/faults/torn-<token>-<n>`.
///
/// Rules are separated by `;`, fields by spaces; `-` for an open window end.
public struct DefaultsFaults: Sendable, Equatable {
    public static let environmentVariable = "SCREENTIME_DEFAULTS_FAULTS"

    public struct Stale: Sendable, Equatable {
        public var seconds: Double
        public var from: Double?
        public var to: Double?
        public init(seconds: Double, from: Double?, to: Double?) {
            self.seconds = seconds
            self.from = from
            self.to = to
        }
    }

    public struct Torn: Sendable, Equatable {
        public var from: Double?
        public var to: Double?
        public var token: String
        public var maxCount: Int
        public init(from: Double?, to: Double?, token: String, maxCount: Int) {
            self.from = from
            self.to = to
            self.token = token
            self.maxCount = maxCount
        }
    }

    public var stale: [Stale] = []
    public var torn: [Torn] = []

    public init(stale: [Stale] = [], torn: [Torn] = []) {
        self.stale = stale
        self.torn = torn
    }

    public var isEmpty: Bool { stale.isEmpty && torn.isEmpty }

    static func inWindow(_ t: Double, _ from: Double?, _ to: Double?) -> Bool { (from.map { t >= $0 } ?? true) && (to.map { t <= $0 } ?? true) }

    /// How long a reader's cache stays stale at device time `t`, if a stale rule is on then.
    package func staleSeconds(at t: Double) -> Double? { stale.first { Self.inWindow(t, $0.from, $0.to) }?.seconds }

    package func tornRule(at t: Double) -> Torn? { torn.first { Self.inWindow(t, $0.from, $0.to) } }

    public func encoded() -> String {
        func n(_ v: Double?) -> String { v.map { String(format: "%.3f", $0) } ?? "-" }
        return (stale.map { "stale \(n($0.seconds)) \(n($0.from)) \(n($0.to))" } + torn.map { "torn \(n($0.from)) \(n($0.to)) \($0.token) \($0.maxCount)" })
            .joined(separator: ";")
    }

    /// nil when `text` is malformed (the process then runs without faults, and says so on stderr).
    public static func parse(_ text: String) -> DefaultsFaults? {
        var out = DefaultsFaults()
        func n(_ s: Substring) -> Double?? { s == "-" ? .some(nil) : Double(s).map { .some($0) } }
        for rule in text.split(separator: ";") {
            let f = rule.split(separator: " ")
            switch f.first {
            case "stale":
                guard f.count == 4, let s = n(f[1]), let seconds = s, let from = n(f[2]), let to = n(f[3]) else { return nil }
                out.stale.append(Stale(seconds: seconds, from: from, to: to))
            case "torn":
                guard f.count == 5, let from = n(f[1]), let to = n(f[2]), let max = Int(f[4]), max >= 1, max <= 1000,
                    f[3].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
                else { return nil }
                out.torn.append(Torn(from: from, to: to, token: String(f[3]), maxCount: max))
            default:
                return nil
            }
        }
        return out
    }

    /// This process's faults, from its environment (read once); inside the harness, the stand-in
    /// launch's own (read once per launch).
    public static var current: DefaultsFaults? {
        guard StandInEnvironment.incarnation != nil else { return ofTheProcess }
        return StandInEnvironment.perIncarnation(key: environmentVariable) { Launch(fromEnvironment()) }?.faults
    }

    private final class Launch {
        let faults: DefaultsFaults?
        init(_ f: DefaultsFaults?) { faults = f }
    }

    private static let ofTheProcess: DefaultsFaults? = fromEnvironment()

    private static func fromEnvironment() -> DefaultsFaults? {
        guard let text = StandInEnvironment.current[environmentVariable], !text.isEmpty else { return nil }
        guard let f = parse(text) else {
            FileHandle.standardError.write(Data("screentime: ignoring malformed \(environmentVariable)='\(text)'\n".utf8))
            return nil
        }
        return f.isEmpty ? nil : f
    }

    /// Claims one of the rule's `maxCount` tears for this process (O_EXCL: exactly one claimant
    /// per slot across processes); false when all are used.
    package static func claimTear(_ rule: Torn, root: DeviceRoot) -> Bool {
        let dir = root.path + "/system/faults"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for i in 0..<rule.maxCount {
            let fd = open("\(dir)/torn-\(rule.token)-\(i)", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 {
                close(fd)
                return true
            }
        }
        return false
    }
}
