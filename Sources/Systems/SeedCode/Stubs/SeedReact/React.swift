import Foundation

// React Native's bridge types as Swift sees them (compile-only stand-ins).
// RCTPromiseResolveBlock is `void (^)(id result)`, RCTPromiseRejectBlock
// `void (^)(NSString *code, NSString *message, NSError *error)`.
public typealias RCTPromiseResolveBlock = (Any?) -> Void
public typealias RCTPromiseRejectBlock = (String?, String?, (any Error)?) -> Void

open class RCTEventEmitter: NSObject {
    public override init() {}
    open func supportedEvents() -> [String]! { [] }
    open func sendEvent(withName name: String!, body: Any!) {}
}
