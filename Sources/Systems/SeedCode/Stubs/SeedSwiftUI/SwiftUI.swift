@_exported import SeedPlatform

// SwiftUI as the seeds use it, compile-only: views are values that describe nothing, and a
// hosting controller shows nothing. Enough for `struct X: View { @State …; var body: some View {…} }`.

public protocol View {
    associatedtype Body: View
    @ViewBuilder var body: Body { get }
}

extension Never: View {
    public var body: Never { return fatalError("Never has no body") }
}

/// Every view the stand-ins build is erased to this.
public struct AnyView: View {
    public init<V: View>(_ view: V) {}
    public var body: Never { return fatalError("AnyView is primitive") }
}

@resultBuilder public enum ViewBuilder {
    public static func buildExpression<V: View>(_ v: V) -> AnyView { AnyView(v) }
    public static func buildBlock(_ parts: AnyView...) -> AnyView { AnyView(EmptyView()) }
    public static func buildOptional(_ part: AnyView?) -> AnyView { part ?? AnyView(EmptyView()) }
    public static func buildEither(first: AnyView) -> AnyView { first }
    public static func buildEither(second: AnyView) -> AnyView { second }
}

public struct EmptyView: View {
    public init() {}
    public var body: Never { return fatalError("EmptyView is primitive") }
}

public struct Font: Sendable {
    let name: String
    public static let title = Font(name: "title")
    public static let headline = Font(name: "headline")
    public static let body = Font(name: "body")
}

public struct Text: View {
    public let content: String
    public init(_ content: String) { self.content = content }
    public func font(_ font: Font?) -> Text { self }
    public var body: Never { return fatalError("Text is primitive") }
}

public struct VStack: View {
    public init(@ViewBuilder content: () -> AnyView) { _ = content() }
    public var body: Never { return fatalError("VStack is primitive") }
}

public struct Button: View {
    let action: () -> Void
    public init(_ title: String, action: @escaping () -> Void) { self.action = action }
    public var body: Never { return fatalError("Button is primitive") }
}

extension View {
    public func padding() -> AnyView { AnyView(self) }
}

@propertyWrapper public struct Binding<Value> {
    let get: () -> Value
    let set: (Value) -> Void

    public init(get: @escaping () -> Value, set: @escaping (Value) -> Void) {
        self.get = get
        self.set = set
    }

    public var wrappedValue: Value {
        get { get() }
        nonmutating set { set(newValue) }
    }

    public var projectedValue: Binding<Value> { self }
}

@propertyWrapper public struct State<Value> {
    final class Box { var value: Value; init(_ v: Value) { value = v } }
    let box: Box

    public init(wrappedValue: Value) { box = Box(wrappedValue) }

    public var wrappedValue: Value {
        get { box.value }
        nonmutating set { box.value = newValue }
    }

    public var projectedValue: Binding<Value> { Binding(get: { self.box.value }, set: { self.box.value = $0 }) }
}

open class UIHostingController<Content: View>: UIViewController {
    public let rootView: Content
    public init(rootView: Content) { self.rootView = rootView }
}
