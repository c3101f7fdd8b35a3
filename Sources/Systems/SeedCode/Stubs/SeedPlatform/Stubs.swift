import Foundation

// Stand-ins for what the seeds' host apps link besides Apple's Screen Time frameworks: UIKit's
// app lifecycle types and Flutter's method channel. Compile-only: they do nothing, and nothing in
// the harness depends on them (the Screen Time modules in Sources/EmulatedIOS/Frameworks are the real ones).

// MARK: UIKit (app lifecycle; colors and images are the real UIKit)

open class UIResponder: NSObject {}

open class UIViewController: UIResponder {
    public override init() {}
    open func present(_ viewControllerToPresent: UIViewController, animated flag: Bool, completion: (() -> Void)? = nil) { completion?() }
    open func dismiss(animated flag: Bool, completion: (() -> Void)? = nil) { completion?() }
}

open class UIWindow: UIResponder {
    open var rootViewController: UIViewController?
}

open class UIApplication: UIResponder, @unchecked Sendable {
    nonisolated(unsafe) public static let shared = UIApplication()
    open var windows: [UIWindow] = []
    open var applicationIconBadgeNumber = 0

    public struct OpenURLOptionsKey: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }
}

// MARK: Flutter

public typealias FlutterResult = (Any?) -> Void

public final class FlutterMethodCall: NSObject {
    public let method: String
    public let arguments: Any?

    public init(methodName: String, arguments: Any?) {
        self.method = methodName
        self.arguments = arguments
    }
}

public final class FlutterMethodChannel: NSObject {
    public let name: String
    private var handler: ((FlutterMethodCall, @escaping FlutterResult) -> Void)?

    public init(name: String) { self.name = name }

    public func invokeMethod(_ method: String, arguments: Any?) {}

    public func setMethodCallHandler(_ handler: ((FlutterMethodCall, @escaping FlutterResult) -> Void)?) { self.handler = handler }
}
