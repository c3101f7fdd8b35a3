import AppGroup
import Foundation

/// The Darwin notify center of CoreFoundation, as iOS apps call it
/// (`CFNotificationCenterPostNotification(CFNotificationCenterGetDarwinNotifyCenter(), …)`),
/// over the device root's notify files (PROTOCOL.md §4). Linux's CoreFoundation has no Darwin
/// center and no `"name" as CFString` bridge; these stand-ins take the same spelling.

/// A CoreFoundation string. Toll-free bridged to `NSString` on iOS; here it is `NSString`, so both
/// `"x" as CFString` and `someString as CFString` compile as they do there.
public typealias CFString = NSString

extension NSString {
    /// The Swift string (what the notify center posts by).
    var string: String { String(describing: self) }
}

/// Darwin notifications carry no payload; a userInfo is ignored, as the Darwin center does.
public final class CFDictionary: Sendable {}

public struct CFNotificationName: RawRepresentable, Hashable, @unchecked Sendable {
    public let rawValue: CFString
    public init(rawValue: CFString) { self.rawValue = rawValue }
    public init(_ rawValue: CFString) { self.rawValue = rawValue }
}

public enum CFNotificationSuspensionBehavior: Int, Sendable {
    case drop = 1, coalesce = 2, hold = 3, deliverImmediately = 4
}

/// The observer callback. A Swift closure rather than a C function pointer: callers write the
/// same non-capturing closure either way.
public typealias CFNotificationCallback = (CFNotificationCenter?, UnsafeMutableRawPointer?, CFNotificationName?, UnsafeRawPointer?, CFDictionary?) -> Void

public final class CFNotificationCenter: @unchecked Sendable {
    let center: DarwinNotificationCenter?
    private let lock = NSLock()
    private var observers: [(observer: UnsafeRawPointer?, name: String, token: DarwinNotificationCenter.ObserverToken)] = []

    init(center: DarwinNotificationCenter?) { self.center = center }

    /// A center over an explicit device's notify files (tests; apps use the Darwin center).
    @_spi(ScreenTimeHarness) public convenience init(darwinCenter: DarwinNotificationCenter) { self.init(center: darwinCenter) }

    static let darwin = CFNotificationCenter(center: DarwinNotificationCenter.shared)

    func post(_ name: String) {
        guard let center else { return report("post \(name)", "no device root") }
        do { try center.post(name) } catch { report("post \(name)", error) }
    }

    func add(observer: UnsafeRawPointer?, name: String, callback: @escaping CFNotificationCallback) {
        guard let center else { return report("addObserver \(name)", "no device root") }
        let observerBits = observer.map { UInt(bitPattern: $0) }
        let callbackBox = CallbackBox(callback)
        do {
            let token = try center.addObserver(name) { [weak self] n in
                callbackBox.call(self, observerBits.flatMap { UnsafeMutableRawPointer(bitPattern: $0) }, CFNotificationName(n as CFString))
            }
            lock.lock()
            observers.append((observer, name, token))
            lock.unlock()
        } catch {
            report("addObserver \(name)", error)
        }
    }

    func remove(observer: UnsafeRawPointer?, name: String?) {
        lock.lock()
        let gone = observers.filter { $0.observer == observer && (name == nil || $0.name == name) }
        observers.removeAll { $0.observer == observer && (name == nil || $0.name == name) }
        lock.unlock()
        for o in gone { center?.removeObserver(o.token) }
    }

    private func report(_ what: String, _ error: Any) {
        FileHandle.standardError.write(Data("screentime: CFNotificationCenter \(what): \(error)\n".utf8))
    }
}

/// Callbacks are called on the notify thread; the box only carries the closure there.
private final class CallbackBox: @unchecked Sendable {
    let callback: CFNotificationCallback
    init(_ c: @escaping CFNotificationCallback) { callback = c }
    func call(_ center: CFNotificationCenter?, _ observer: UnsafeMutableRawPointer?, _ name: CFNotificationName) {
        callback(center, observer, name, nil, nil)
    }
}

public func CFNotificationCenterGetDarwinNotifyCenter() -> CFNotificationCenter { CFNotificationCenter.darwin }

/// Posts `name`; `object`, `userInfo` and `deliverImmediately` are ignored, as the Darwin center ignores them.
public func CFNotificationCenterPostNotification(
    _ center: CFNotificationCenter?, _ name: CFNotificationName?, _ object: UnsafeRawPointer?, _ userInfo: CFDictionary?, _ deliverImmediately: Bool
) {
    guard let center, let name else { return }
    center.post(name.rawValue.string)
}

public func CFNotificationCenterAddObserver(
    _ center: CFNotificationCenter?, _ observer: UnsafeRawPointer?, _ callBack: @escaping CFNotificationCallback, _ name: CFString?,
    _ object: UnsafeRawPointer?, _ suspensionBehavior: CFNotificationSuspensionBehavior
) {
    guard let center, let name else { return }
    center.add(observer: observer, name: name.string, callback: callBack)
}

public func CFNotificationCenterRemoveObserver(_ center: CFNotificationCenter?, _ observer: UnsafeRawPointer?, _ name: CFNotificationName?, _ object: UnsafeRawPointer?) {
    center?.remove(observer: observer, name: name?.rawValue.string)
}

public func CFNotificationCenterRemoveEveryObserver(_ center: CFNotificationCenter?, _ observer: UnsafeRawPointer?) {
    center?.remove(observer: observer, name: nil)
}
