// API probe: Foundation as app code gets it through an Apple-named module (here `import
// ManagedSettings` alone, no `import Foundation`), with the App Group `UserDefaults` and
// CoreFoundation's Darwin notify center (docs/FRAMEWORKS-API.md, EMULATED-IOS.md §7.11). Only members
// that compile are here; the rest are in not-provided.txt.
import ManagedSettings

/// `UserDefaults.init(suiteName:)` (an App Group suite)
func probe_UserDefaults_initSuiteName() {
    let defaults: UserDefaults? = UserDefaults(suiteName: "group.com.example.app")
    _ = defaults
}

/// `UserDefaults.standard`
func probe_UserDefaults_standard() {
    let defaults: UserDefaults = .standard
    _ = defaults
}

/// `UserDefaults.init()`
func probe_UserDefaults_init() {
    let defaults = UserDefaults()
    _ = defaults
}

/// `UserDefaults.set(_:forKey:)` (`Any?`: strings, dates, data, arrays, dictionaries)
func probe_UserDefaults_setAny(_ defaults: UserDefaults) {
    defaults.set("daily", forKey: "activity")
    defaults.set(Date(), forKey: "startedAt")
    defaults.set(Data([1, 2, 3]), forKey: "blob")
    defaults.set(["a", "b"], forKey: "list")
    defaults.set(["k": 1], forKey: "map")
    defaults.set(nil, forKey: "gone")
}

/// `UserDefaults.set(_:forKey:)` (`Int`)
func probe_UserDefaults_setInt(_ defaults: UserDefaults) {
    defaults.set(15, forKey: "minutes")
}

/// `UserDefaults.set(_:forKey:)` (`Bool`)
func probe_UserDefaults_setBool(_ defaults: UserDefaults) {
    defaults.set(true, forKey: "isShielded")
}

/// `UserDefaults.set(_:forKey:)` (`Double`)
func probe_UserDefaults_setDouble(_ defaults: UserDefaults) {
    defaults.set(Date().timeIntervalSince1970, forKey: "lastCheck")
}

/// `UserDefaults.set(_:forKey:)` (`Float`)
func probe_UserDefaults_setFloat(_ defaults: UserDefaults) {
    defaults.set(Float(0.5), forKey: "ratio")
}

/// `UserDefaults.set(_:forKey:)` (`URL?`)
func probe_UserDefaults_setURL(_ defaults: UserDefaults) {
    defaults.set(URL(string: "https://example.com"), forKey: "link")
}

/// `UserDefaults.setValue(_:forKey:)`
func probe_UserDefaults_setValue(_ defaults: UserDefaults) {
    defaults.setValue("x", forKey: "k")
}

/// `UserDefaults.string(forKey:)`
func probe_UserDefaults_string(_ defaults: UserDefaults) {
    let s: String? = defaults.string(forKey: "activity")
    _ = s
}

/// `UserDefaults.integer(forKey:)`
func probe_UserDefaults_integer(_ defaults: UserDefaults) {
    let n: Int = defaults.integer(forKey: "minutes")
    _ = n
}

/// `UserDefaults.bool(forKey:)`
func probe_UserDefaults_bool(_ defaults: UserDefaults) {
    let b: Bool = defaults.bool(forKey: "isShielded")
    _ = b
}

/// `UserDefaults.double(forKey:)`
func probe_UserDefaults_double(_ defaults: UserDefaults) {
    let d: Double = defaults.double(forKey: "lastCheck")
    _ = d
}

/// `UserDefaults.float(forKey:)`
func probe_UserDefaults_float(_ defaults: UserDefaults) {
    let f: Float = defaults.float(forKey: "ratio")
    _ = f
}

/// `UserDefaults.data(forKey:)`
func probe_UserDefaults_data(_ defaults: UserDefaults) {
    let d: Data? = defaults.data(forKey: "selection")
    _ = d
}

/// `UserDefaults.array(forKey:)`
func probe_UserDefaults_array(_ defaults: UserDefaults) {
    let a: [Any]? = defaults.array(forKey: "list")
    _ = a
}

/// `UserDefaults.stringArray(forKey:)`
func probe_UserDefaults_stringArray(_ defaults: UserDefaults) {
    let a: [String]? = defaults.stringArray(forKey: "list")
    _ = a
}

/// `UserDefaults.dictionary(forKey:)`
func probe_UserDefaults_dictionary(_ defaults: UserDefaults) {
    let d: [String: Any]? = defaults.dictionary(forKey: "map")
    _ = d
}

/// `UserDefaults.url(forKey:)`
func probe_UserDefaults_url(_ defaults: UserDefaults) {
    let u: URL? = defaults.url(forKey: "link")
    _ = u
}

/// `UserDefaults.object(forKey:)`
func probe_UserDefaults_object(_ defaults: UserDefaults) {
    let started = defaults.object(forKey: "startedAt") as? Date
    _ = started
}

/// `UserDefaults.value(forKey:)`
func probe_UserDefaults_value(_ defaults: UserDefaults) {
    _ = defaults.value(forKey: "k")
}

/// `UserDefaults.removeObject(forKey:)`
func probe_UserDefaults_removeObject(_ defaults: UserDefaults) {
    defaults.removeObject(forKey: "activity")
}

/// `UserDefaults.register(defaults:)`
func probe_UserDefaults_register(_ defaults: UserDefaults) {
    defaults.register(defaults: ["minutes": 30])
}

/// `UserDefaults.dictionaryRepresentation()`
func probe_UserDefaults_dictionaryRepresentation(_ defaults: UserDefaults) {
    let all: [String: Any] = defaults.dictionaryRepresentation()
    _ = all
}

/// `UserDefaults.synchronize()`
func probe_UserDefaults_synchronize(_ defaults: UserDefaults) {
    defaults.synchronize()
}

/// `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`
func probe_FileManager_containerURL() {
    let url: URL? = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.app")
    _ = url
}

/// `Date.init()`, `Date.addingTimeInterval(_:)`, `Date.timeIntervalSince(_:)`
func probe_Date() {
    let now = Date()
    let later = now.addingTimeInterval(15 * 60)
    _ = later.timeIntervalSince(now)
}

/// `TimeInterval`
func probe_TimeInterval() {
    let quarter: TimeInterval = 15 * 60
    _ = quarter
}

/// `UUID.init()`, `UUID.uuidString`
func probe_UUID() {
    let id = UUID().uuidString
    _ = id
}

/// `DateComponents.init(calendar:timeZone:era:year:month:day:hour:minute:second:nanosecond:weekday:...)`
func probe_DateComponents() {
    var components = DateComponents(hour: 21, minute: 30)
    components.weekday = 2
    _ = components
}

/// `Calendar.current`, `Calendar.dateComponents(_:from:)`, `Calendar.date(byAdding:value:to:)`
func probe_Calendar() {
    let calendar = Calendar.current
    let parts = calendar.dateComponents([.hour, .minute], from: Date())
    let tomorrow = calendar.date(byAdding: .day, value: 1, to: Date())
    _ = (parts, tomorrow)
}

/// `JSONEncoder`, `JSONDecoder`
func probe_JSON() throws {
    let data = try JSONEncoder().encode(["a": 1])
    _ = try JSONDecoder().decode([String: Int].self, from: data)
}

/// `NotificationCenter.default.post(name:object:)`
func probe_NotificationCenter() {
    NotificationCenter.default.post(name: Notification.Name("shieldChanged"), object: nil)
}

/// `Bundle.main.bundleIdentifier`
func probe_Bundle_bundleIdentifier() {
    let id: String? = Bundle.main.bundleIdentifier
    _ = id
}

/// `CFNotificationCenterGetDarwinNotifyCenter()`, `CFNotificationCenterPostNotification(_:_:_:_:_:)`
func probe_CFNotificationCenterPostNotification() {
    let center = CFNotificationCenterGetDarwinNotifyCenter()
    CFNotificationCenterPostNotification(center, CFNotificationName("com.example.app.changed" as CFString), nil, nil, true)
}

/// `CFNotificationCenterAddObserver(_:_:_:_:_:_:)`
func probe_CFNotificationCenterAddObserver(_ observer: UnsafeRawPointer?) {
    CFNotificationCenterAddObserver(
        CFNotificationCenterGetDarwinNotifyCenter(), observer, { _, _, name, _, _ in _ = name }, "com.example.app.changed" as CFString, nil,
        .deliverImmediately)
}

/// `CFNotificationCenterRemoveObserver(_:_:_:_:)`, `CFNotificationCenterRemoveEveryObserver(_:_:)`
func probe_CFNotificationCenterRemoveObserver(_ observer: UnsafeRawPointer?) {
    let center = CFNotificationCenterGetDarwinNotifyCenter()
    CFNotificationCenterRemoveObserver(center, observer, CFNotificationName("com.example.app.changed" as CFString), nil)
    CFNotificationCenterRemoveEveryObserver(center, observer)
}

/// `autoreleasepool(invoking:)`
func probe_autoreleasepool() -> Int {
    autoreleasepool { 1 + 1 }
}
