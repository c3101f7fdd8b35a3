import DeviceActivity
import FamilyControls
import Foundation

// Not seed text: the door through which a stand-in runs seed 003's own classes (they are internal,
// as the seed writes them). Nothing here decides anything: each call runs the seed's method once
// and reports what it resolved, rejected and emitted, as React Native's bridge would hand it on.

/// The extension's principal object as iOS instantiates it (`NSExtensionPrincipalClass` =
/// `UntilDeviceActivityMonitor`, seed lines 164-175).
public func makeUntilDeviceActivityMonitor() -> DeviceActivityMonitor { UntilDeviceActivityMonitor() }

/// Seed 003's native module (`ScreenTimeModule`), one instance per app process, as React Native
/// creates it: its `selectedAppTokens` live in memory only ("Token Storage: Selected app tokens are
/// stored in the native module").
public final class UntilNativeModule {
    /// How one call to a promise-returning method ended, and what it sent to the JS side meanwhile.
    public struct Settled {
        /// `resolve(x)`: `x` (nil = `resolve(nil)`); nil when it rejected or never settled.
        public var resolved: Any??
        /// `reject(code, message, error)`.
        public var rejected: (code: String, message: String)?
        /// `sendEvent(withName:body:)` calls, in order.
        public var emitted: [(name: String, body: Any?)]
    }

    private let module = ScreenTimeModule()

    public init() {}

    /// What the FamilyActivityPicker handed the module.
    public var selectedAppTokens: Set<ApplicationToken> {
        get { module.selectedAppTokens }
        set { module.selectedAppTokens = newValue }
    }

    /// Seed lines 184-219.
    public func startMonitoring() -> Settled { settle { module.startMonitoring($0, rejecter: $1) } }

    /// Seed lines 234-260.
    public func checkForAppOpenedEvents() -> Settled { settle { module.checkForAppOpenedEvents($0, rejecter: $1) } }

    private func settle(_ call: (@escaping RCTPromiseResolveBlock, @escaping RCTPromiseRejectBlock) -> Void) -> Settled {
        final class Box { var resolved: Any??; var rejected: (code: String, message: String)? }
        let box = Box()
        let before = module.sentEvents.count
        call({ value in if box.resolved == nil && box.rejected == nil { box.resolved = .some(value) } },
             { code, message, _ in if box.resolved == nil && box.rejected == nil { box.rejected = (code ?? "", message ?? "") } })
        return Settled(resolved: box.resolved, rejected: box.rejected, emitted: Array(module.sentEvents[before...]))
    }
}
