import AppGroup
import Foundation
import ManagedSettings
import StandInRuntime
import SystemKit

/// What an extension's principal object (the app's `DeviceActivityMonitor`,
/// `ShieldActionDelegate` or `ShieldConfigurationDataSource` subclass, run by
/// `FrameworkExtension.run`) needs when it hands its decisions to a pure machine: the variant, the
/// device clock and App Group snapshot, and a device that carries the machine's effects out through
/// the one `EffectInterpreter` — with `.respond` going to the completion handler iOS gave, as a
/// seed's `completionHandler(.none)` does.
///
/// `Variant` is the pack's own variant type; a process started with a variant it does not know
/// exits 2 naming the ones it does.
public final class ExtensionEnvironment<Variant: RawRepresentable & CaseIterable> where Variant.RawValue == String {
    public let context: StandInContext
    public let variant: Variant
    public let device: LiveDevice

    public init(context: StandInContext, delivery: String) {
        self.context = context
        variant = context.variant(as: Variant.self)
        device = LiveDevice(context: context, delivery: delivery)
    }

    /// Device time.
    public var now: Date { context.clock.now() }
    /// The App Group suite as it is now.
    public func store() -> [String: PropertyListValue] { context.snapshot() }
    /// The process's own store as it is now.
    public func privateStore() -> [String: PropertyListValue] { context.privateSnapshot() }

    /// Carries `effects` out in order; a `.respond` among them calls `completionHandler` (when
    /// given) instead of only being traced.
    public func perform(_ effects: [Effect], completionHandler: ((ShieldActionResponse) -> Void)? = nil) {
        device.onRespond = completionHandler
        defer { device.onRespond = nil }
        EffectInterpreter.perform(effects, on: device)
    }
}

extension StandInContext {
    /// The environment's variant as the pack's type, or exit 2 naming what is wrong.
    public func variant<V: RawRepresentable & CaseIterable>(as: V.Type) -> V where V.RawValue == String {
        guard let v = V(rawValue: variant) else {
            StandInContext.fail(process, "SCREENTIME_VARIANT must be one of \(V.allCases.map(\.rawValue)), not \(variant)")
        }
        return v
    }
}
