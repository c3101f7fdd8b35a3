import ScreenTimeModel

/// One write to a `ManagedSettingsStore` (EMULATED-IOS.md §7.2): each shield property it names is set
/// or cleared, the others are left as the store has them — so an app and an extension writing
/// different properties of one store do not undo each other. Applications are bundle ids and
/// categories category ids; the device turns them into the OS's opaque tokens.
public struct ShieldWrite: Sendable, Equatable {
    /// One property of the write.
    public enum Value<T: Sendable & Equatable>: Sendable, Equatable {
        /// Not part of this write.
        case unchanged
        /// `= nil`.
        case cleared
        case set(T)

        /// nil = unchanged; `.some(nil)` = cleared.
        public var change: T?? {
            switch self {
            case .unchanged: return nil
            case .cleared: return .some(nil)
            case .set(let v): return .some(v)
            }
        }
    }

    /// `ManagedSettingsStore()` is `default`; `ManagedSettingsStore(named:)` any other name.
    public var store: String
    /// `shield.applications`: bundle ids.
    public var applications: Value<[String]>
    /// `shield.applicationCategories`: `.all(except:)` / `.specific(_:except:)` of category ids
    /// (except: bundle ids).
    public var applicationCategories: Value<CategoryPolicyRecord>
    /// `shield.webDomains`: domains.
    public var webDomains: Value<[String]>

    public static let defaultStore = "default"

    public init(
        store: String = ShieldWrite.defaultStore, applications: Value<[String]> = .unchanged,
        applicationCategories: Value<CategoryPolicyRecord> = .unchanged, webDomains: Value<[String]> = .unchanged
    ) {
        self.store = store
        self.applications = applications
        self.applicationCategories = applicationCategories
        self.webDomains = webDomains
    }

    /// The trace fields of a write that landed: `apps` always (empty when cleared or unchanged:
    /// the shielded apps' change is what the checkers read), `store` when not the default, and
    /// the other properties only when the write sets them.
    public var traceFields: [String: String] {
        var f: [String: String] = [:]
        if case .set(let apps) = applications { f["apps"] = apps.sorted().joined(separator: ",") } else { f["apps"] = "" }
        if store != Self.defaultStore { f["store"] = store }
        switch applicationCategories {
        case .set(let p): f["categories"] = "\(p.policy.rawValue):\(p.categories.sorted().joined(separator: ","))"
            + (p.except.isEmpty ? "" : " except \(p.except.sorted().joined(separator: ","))")
        case .cleared, .unchanged: break
        }
        if case .set(let domains) = webDomains { f["webDomains"] = domains.sorted().joined(separator: ",") }
        return f
    }
}
