import Foundation

/// Apple's `UIFont`, as a shield configuration or a notification's attachment asks for one: a
/// name, a size and a weight, recorded (nothing is drawn).
public final class UIFont: Hashable, Sendable, CustomStringConvertible {
    public let fontName: String
    public let pointSize: CGFloat
    public let weight: Weight

    /// Apple's `UIFont.Weight`.
    public struct Weight: RawRepresentable, Hashable, Sendable {
        public let rawValue: CGFloat
        public init(rawValue: CGFloat) { self.rawValue = rawValue }
        public static let ultraLight = Weight(rawValue: -0.8)
        public static let thin = Weight(rawValue: -0.6)
        public static let light = Weight(rawValue: -0.4)
        public static let regular = Weight(rawValue: 0)
        public static let medium = Weight(rawValue: 0.23)
        public static let semibold = Weight(rawValue: 0.3)
        public static let bold = Weight(rawValue: 0.4)
        public static let heavy = Weight(rawValue: 0.56)
        public static let black = Weight(rawValue: 0.62)
    }

    /// Apple's `UIFont.TextStyle`, with the sizes of the default Dynamic Type setting (Large).
    public struct TextStyle: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let largeTitle = TextStyle(rawValue: "largeTitle")
        public static let title1 = TextStyle(rawValue: "title1")
        public static let title2 = TextStyle(rawValue: "title2")
        public static let title3 = TextStyle(rawValue: "title3")
        public static let headline = TextStyle(rawValue: "headline")
        public static let subheadline = TextStyle(rawValue: "subheadline")
        public static let body = TextStyle(rawValue: "body")
        public static let callout = TextStyle(rawValue: "callout")
        public static let footnote = TextStyle(rawValue: "footnote")
        public static let caption1 = TextStyle(rawValue: "caption1")
        public static let caption2 = TextStyle(rawValue: "caption2")

        var defaultSize: CGFloat {
            switch rawValue {
            case "largeTitle": 34
            case "title1": 28
            case "title2": 22
            case "title3": 20
            case "subheadline": 15
            case "callout": 16
            case "footnote": 13
            case "caption1": 12
            case "caption2": 11
            default: 17
            }
        }
    }

    init(name: String, size: CGFloat, weight: Weight) {
        fontName = name
        pointSize = size
        self.weight = weight
    }

    /// Apple's `init?(name:size:)`: nil for an empty name.
    public convenience init?(name: String, size: CGFloat) {
        guard !name.isEmpty else { return nil }
        self.init(name: name, size: size, weight: .regular)
    }

    public static func systemFont(ofSize size: CGFloat) -> UIFont { UIFont(name: ".SFUI", size: size, weight: .regular) }
    public static func systemFont(ofSize size: CGFloat, weight: Weight) -> UIFont { UIFont(name: ".SFUI", size: size, weight: weight) }
    public static func boldSystemFont(ofSize size: CGFloat) -> UIFont { UIFont(name: ".SFUI", size: size, weight: .bold) }
    public static func italicSystemFont(ofSize size: CGFloat) -> UIFont { UIFont(name: ".SFUI-Italic", size: size, weight: .regular) }
    public static func monospacedDigitSystemFont(ofSize size: CGFloat, weight: Weight) -> UIFont { UIFont(name: ".SFUI-Mono", size: size, weight: weight) }
    public static func preferredFont(forTextStyle style: TextStyle) -> UIFont {
        UIFont(name: ".SFUI", size: style.defaultSize, weight: style == .headline ? .semibold : .regular)
    }
    /// Apple's `withSize(_:)`.
    public func withSize(_ size: CGFloat) -> UIFont { UIFont(name: fontName, size: size, weight: weight) }

    public var description: String { "\(fontName) \(pointSize)" }
    public static func == (a: UIFont, b: UIFont) -> Bool { a.fontName == b.fontName && a.pointSize == b.pointSize && a.weight == b.weight }
    public func hash(into h: inout Hasher) {
        h.combine(fontName)
        h.combine(pointSize)
    }
}
