// Foundation as an app in an App Group sees it. Every Apple-named module re-exports this module
// (and through it Foundation, as Apple's frameworks do), so app code that writes
// `UserDefaults(suiteName: "group.…")` reaches the App Group — unchanged, with no alias.
//
// Why a class of Foundation's name: Linux Foundation's `UserDefaults(suiteName:)` compiles, runs
// and writes a private plist under $HOME/.config — an app "works" and shares nothing. Swift prefers
// a module's own declaration over one of a module it re-exports (as long as the file reaches
// Foundation only through it), so `UserDefaults` here is what such a file gets. A file that also
// writes `import Foundation` itself sees both: `UserDefaults(suiteName: "group.…")` (a `String`)
// still picks this one; `.standard`, a `String?` suite name and a type annotation are ambiguous —
// a compile error naming `UserDefaults` (drop that `import Foundation`: Apple's Screen Time modules
// re-export it too). Only an explicit `Foundation.UserDefaults` reaches Linux Foundation's; the
// harness reports such a suite when it reaches disk (EMULATED-IOS.md §7.11).
@_exported import Foundation
import AppGroup
// CoreFoundation's Darwin notify center, which Foundation brings on iOS.
@_exported import CFDarwinNotify

/// Apple's `UserDefaults`, as an app on iOS gets it (PROTOCOL.md §3, EMULATED-IOS.md §7.11):
/// - `UserDefaults(suiteName: "group.…")` is the App Group's shared suite when the process is
///   entitled to the group (`APP_GROUPS`), else nil — the harness's cross-process store with its
///   lock, crash points, faults and traced writes;
/// - `UserDefaults.standard` (and `UserDefaults()`, and any other suite name) is the process's own
///   store in its sandbox (`sandboxes/<process>/Library/Preferences/`), which no other process opens;
/// - `init?(suiteName:)` returns nil for the names iOS refuses (`NSGlobalDomain`, empty).
///
/// Inside the harness (stand-ins run as threads of it) an object app code keeps in a `static` —
/// a seed's `AppGroupStorage.shared` holding its `UserDefaults` — outlives the launch that made it,
/// as it never does on iOS, where a relaunch is a new process with new memory. So the store it
/// speaks to is the current launch's: opened afresh, once per launch and suite. The store's
/// in-memory state (its lock, its cache) is then the launch's own — a launch killed in the middle
/// of a write leaves its lock held, and a later launch must not wait for it.
open class UserDefaults: @unchecked Sendable {
    /// The store this object opened.
    private let opened: SharedDefaults
    /// Inside the harness: the launch that opened it (kept, so that its identity is never a later
    /// launch's), and how another launch opens the same suite.
    private let openedBy: AnyObject?
    private let reopen: (@Sendable () -> SharedDefaults?)?
    /// The suite, or nil for `.standard`.
    public let suiteName: String?

    /// The store behind this object: the one it opened, or inside the harness, when another launch
    /// than the one that made it asks, that launch's own store of the same suite.
    public var store: SharedDefaults {
        guard let openedBy, let reopen, let now = StandInEnvironment.incarnation, now != ObjectIdentifier(openedBy) else { return opened }
        return StandInEnvironment.perIncarnation(key: "UserDefaults " + (suiteName ?? Self.standardSuiteName), reopen) ?? opened
    }

    /// The suite that holds `standard`: `sandboxes/<process>/Library/Preferences/standard.plist`.
    public static let standardSuiteName = "standard"

    /// `UserDefaults(suiteName: "group.…")`. Taking a `String` (Apple's takes `String?`) makes Swift
    /// prefer this initializer to Linux Foundation's even in a file that imports Foundation itself.
    public convenience init?(suiteName: String) {
        self.init(suiteName: Optional(suiteName))
    }

    /// `UserDefaults(suiteName: name)` with a `String?`. In a file that also imports Foundation
    /// itself this is ambiguous with Foundation's own — a compile error, never a silent private file
    /// (as are `UserDefaults.standard` and a `UserDefaults` type annotation there).
    public init?(suiteName: String?) {
        guard let suiteName, !suiteName.isEmpty else {
            guard let s = Self.privateStore(Self.standardSuiteName) else { return nil }
            opened = s
            self.suiteName = nil
            (openedBy, reopen) = Self.launch { Self.privateStore(Self.standardSuiteName) }
            return
        }
        if suiteName == "NSGlobalDomain" { return nil }
        let open: @Sendable () -> SharedDefaults? = {
            suiteName.hasPrefix("group.") ? SharedDefaults(suiteName: suiteName) : Self.privateStore(suiteName)
        }
        guard let s = open() else { return nil }
        opened = s
        self.suiteName = suiteName
        (openedBy, reopen) = Self.launch(open)
    }

    /// `UserDefaults()`: the standard store.
    public convenience init() {
        guard let s = Self.privateStore(Self.standardSuiteName) else {
            Self.unavailable("UserDefaults()")
        }
        self.init(opened: s, suiteName: nil, reopen: { Self.privateStore(Self.standardSuiteName) })
    }

    /// A store opened by other means (a stand-in's own suite, tests): always this one.
    public init(store: SharedDefaults, suiteName: String?) {
        opened = store
        self.suiteName = suiteName
        openedBy = nil
        reopen = nil
    }

    private init(opened: SharedDefaults, suiteName: String?, reopen: @escaping @Sendable () -> SharedDefaults?) {
        self.opened = opened
        self.suiteName = suiteName
        (openedBy, self.reopen) = Self.launch(reopen)
    }

    /// Inside the harness, the launch asking and how another launch opens the store; else nils.
    private static func launch(_ reopen: @escaping @Sendable () -> SharedDefaults?) -> (AnyObject?, (@Sendable () -> SharedDefaults?)?) {
        guard let launch = StandInEnvironment.incarnationObject else { return (nil, nil) }
        return (launch, reopen)
    }

    nonisolated(unsafe) private static var standardInstance: UserDefaults?
    private static let standardLock = NSLock()

    /// The process's own store, made on first use (inside the harness: once per launch, each in its
    /// own role's sandbox).
    open class var standard: UserDefaults {
        if let mine = StandInEnvironment.perIncarnation(key: "standard", {
            // Kept in a global (`let fallback = UserDefaults.standard`), it is a later launch's own.
            privateStore(standardSuiteName).map { UserDefaults(opened: $0, suiteName: nil, reopen: { privateStore(standardSuiteName) }) }
        }) { return mine }
        standardLock.lock()
        defer { standardLock.unlock() }
        if let s = standardInstance { return s }
        guard let s = privateStore(standardSuiteName) else { unavailable("UserDefaults.standard") }
        let d = UserDefaults(store: s, suiteName: nil)
        standardInstance = d
        return d
    }

    /// Reading and writing the private store need the device: a process the harness did not start
    /// stops here with one line rather than writing somewhere no run looks.
    static func unavailable(_ what: String) -> Never {
        let line = "screentime: \(what): no device sandbox for this process (SCREENTIME_DEVICE_ROOT and SCREENTIME_PROCESS are set by the harness: start it with `harness run`)\n"
        FileHandle.standardError.write(Data(line.utf8))
        exit(2)
    }

    /// `sandboxes/<process>/Library/Preferences/<suite>.plist`, or nil without a device or a role.
    static func privateStore(_ suite: String) -> SharedDefaults? {
        let env = StandInEnvironment.current
        guard let process = env[StandInEnvironment.processVariable], !process.isEmpty,
            let root = try? DeviceRoot(path: DeviceRoot.resolvePath(environment: env), create: false),
            let sandbox = try? AppGroupContainer(sandboxOf: process, deviceRoot: root)
        else { return nil }
        return try? SharedDefaults(container: sandbox, suiteName: suite)
    }

    // MARK: Reading (Apple's names and defaults: 0, false, nil for a missing key)

    open func object(forKey defaultName: String) -> Any? { store.object(forKey: defaultName) }
    open func string(forKey defaultName: String) -> String? { store.string(forKey: defaultName) }
    open func bool(forKey defaultName: String) -> Bool { store.bool(forKey: defaultName) }
    open func integer(forKey defaultName: String) -> Int { store.integer(forKey: defaultName) }
    open func double(forKey defaultName: String) -> Double { store.double(forKey: defaultName) }
    open func float(forKey defaultName: String) -> Float { store.float(forKey: defaultName) }
    open func data(forKey defaultName: String) -> Data? { store.data(forKey: defaultName) }
    open func array(forKey defaultName: String) -> [Any]? { store.array(forKey: defaultName) }
    open func dictionary(forKey defaultName: String) -> [String: Any]? { store.dictionary(forKey: defaultName) }
    open func stringArray(forKey defaultName: String) -> [String]? { store.stringArray(forKey: defaultName) }
    open func url(forKey defaultName: String) -> URL? {
        if let s = store.string(forKey: defaultName) { return URL(string: s) }
        if let d = store.data(forKey: defaultName), let s = String(data: d, encoding: .utf8) { return URL(string: s) }
        return nil
    }
    open func value(forKey key: String) -> Any? { store.object(forKey: key) }
    open func register(defaults registrationDictionary: [String: Any]) { store.register(defaults: registrationDictionary) }
    open func dictionaryRepresentation() -> [String: Any] { store.dictionaryRepresentation() }
    /// Documented as unnecessary; re-reads the suite and says whether it could be read.
    @discardableResult open func synchronize() -> Bool { store.synchronize() }

    // MARK: Writing (one atomic write per call; a failure is reported, never thrown, as on iOS)

    open func set(_ value: Any?, forKey defaultName: String) { store.set(value, forKey: defaultName) }
    open func set(_ value: Int, forKey defaultName: String) { store.set(value, forKey: defaultName) }
    open func set(_ value: Double, forKey defaultName: String) { store.set(value, forKey: defaultName) }
    open func set(_ value: Float, forKey defaultName: String) { store.set(value, forKey: defaultName) }
    open func set(_ value: Bool, forKey defaultName: String) { store.set(value, forKey: defaultName) }
    open func set(_ url: URL?, forKey defaultName: String) { store.set(url, forKey: defaultName) }
    open func setValue(_ value: Any?, forKey key: String) { store.set(value, forKey: key) }
    open func removeObject(forKey defaultName: String) { store.removeObject(forKey: defaultName) }
}

/// Apple's `autoreleasepool(invoking:)` (the ObjC runtime's pool, which iOS app code wraps loops
/// in to release memory early). Linux has no autorelease pool: the body runs as is.
public func autoreleasepool<Result>(invoking body: () throws -> Result) rethrows -> Result {
    try body()
}
