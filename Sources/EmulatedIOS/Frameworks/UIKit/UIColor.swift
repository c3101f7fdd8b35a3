/// The part of UIKit that shield configurations use (re-exported by `ManagedSettingsUI`, as
/// Apple's is): a color the shield is drawn with. Only what a shield configuration can carry:
/// components and, for system and named colors, their name (the harness records a
/// configuration, it draws nothing).
public final class UIColor: Hashable, Sendable, CustomStringConvertible {
    public let redComponent: Double
    public let greenComponent: Double
    public let blueComponent: Double
    public let alphaComponent: Double
    /// `systemBlue`, `white`, …; nil for a color made from components.
    public let name: String?

    public init(red: Double, green: Double, blue: Double, alpha: Double) {
        redComponent = red
        greenComponent = green
        blueComponent = blue
        alphaComponent = alpha
        self.name = nil
    }

    public convenience init(white: Double, alpha: Double) { self.init(red: white, green: white, blue: white, alpha: alpha) }

    init(_ name: String, _ r: Double, _ g: Double, _ b: Double, _ a: Double = 1) {
        redComponent = r
        greenComponent = g
        blueComponent = b
        alphaComponent = a
        self.name = name
    }

    public func withAlphaComponent(_ alpha: Double) -> UIColor { UIColor(red: redComponent, green: greenComponent, blue: blueComponent, alpha: alpha) }

    public var description: String {
        name ?? "rgba(\(redComponent),\(greenComponent),\(blueComponent),\(alphaComponent))"
    }

    public static func == (a: UIColor, b: UIColor) -> Bool {
        a.name == b.name && a.redComponent == b.redComponent && a.greenComponent == b.greenComponent
            && a.blueComponent == b.blueComponent && a.alphaComponent == b.alphaComponent
    }

    public func hash(into h: inout Hasher) {
        h.combine(name)
        h.combine(redComponent)
        h.combine(greenComponent)
        h.combine(blueComponent)
        h.combine(alphaComponent)
    }

    public static let black = UIColor("black", 0, 0, 0)
    public static let white = UIColor("white", 1, 1, 1)
    public static let clear = UIColor("clear", 0, 0, 0, 0)
    public static let gray = UIColor("gray", 0.5, 0.5, 0.5)
    public static let red = UIColor("red", 1, 0, 0)
    public static let green = UIColor("green", 0, 1, 0)
    public static let blue = UIColor("blue", 0, 0, 1)
    public static let orange = UIColor("orange", 1, 0.5, 0)
    public static let systemRed = UIColor("systemRed", 1, 0.231, 0.188)
    public static let systemGreen = UIColor("systemGreen", 0.204, 0.780, 0.349)
    public static let systemBlue = UIColor("systemBlue", 0, 0.478, 1)
    public static let systemOrange = UIColor("systemOrange", 1, 0.584, 0)
    public static let systemYellow = UIColor("systemYellow", 1, 0.8, 0)
    public static let systemPurple = UIColor("systemPurple", 0.686, 0.322, 0.871)
    public static let systemGray = UIColor("systemGray", 0.557, 0.557, 0.576)
    public static let systemBackground = UIColor("systemBackground", 1, 1, 1)
    public static let label = UIColor("label", 0, 0, 0)
    public static let secondaryLabel = UIColor("secondaryLabel", 0.235, 0.235, 0.263, 0.6)
    // Apple's fixed colors and the light-appearance values of its system and semantic colors (a
    // shield is recorded, not drawn: the name is what a checker reads).
    public static let darkGray = UIColor("darkGray", 1.0 / 3, 1.0 / 3, 1.0 / 3)
    public static let lightGray = UIColor("lightGray", 2.0 / 3, 2.0 / 3, 2.0 / 3)
    public static let yellow = UIColor("yellow", 1, 1, 0)
    public static let purple = UIColor("purple", 0.5, 0, 0.5)
    public static let brown = UIColor("brown", 0.6, 0.4, 0.2)
    public static let cyan = UIColor("cyan", 0, 1, 1)
    public static let magenta = UIColor("magenta", 1, 0, 1)
    public static let systemPink = UIColor("systemPink", 1, 0.176, 0.333)
    public static let systemTeal = UIColor("systemTeal", 0.188, 0.690, 0.780)
    public static let systemIndigo = UIColor("systemIndigo", 0.345, 0.337, 0.839)
    public static let systemMint = UIColor("systemMint", 0, 0.780, 0.745)
    public static let systemCyan = UIColor("systemCyan", 0.196, 0.678, 0.902)
    public static let systemBrown = UIColor("systemBrown", 0.635, 0.518, 0.369)
    public static let systemGray2 = UIColor("systemGray2", 0.682, 0.682, 0.698)
    public static let systemGray3 = UIColor("systemGray3", 0.780, 0.780, 0.800)
    public static let systemGray4 = UIColor("systemGray4", 0.820, 0.820, 0.839)
    public static let systemGray5 = UIColor("systemGray5", 0.898, 0.898, 0.918)
    public static let systemGray6 = UIColor("systemGray6", 0.949, 0.949, 0.969)
    public static let tertiaryLabel = UIColor("tertiaryLabel", 0.235, 0.235, 0.263, 0.3)
    public static let quaternaryLabel = UIColor("quaternaryLabel", 0.235, 0.235, 0.263, 0.18)
    public static let secondarySystemBackground = UIColor("secondarySystemBackground", 0.949, 0.949, 0.969)
    public static let tertiarySystemBackground = UIColor("tertiarySystemBackground", 1, 1, 1)
    public static let systemGroupedBackground = UIColor("systemGroupedBackground", 0.949, 0.949, 0.969)
    public static let systemFill = UIColor("systemFill", 0.471, 0.471, 0.502, 0.2)
    public static let separator = UIColor("separator", 0.235, 0.235, 0.263, 0.29)
    public static let link = UIColor("link", 0, 0.478, 1)
    public static let placeholderText = UIColor("placeholderText", 0.235, 0.235, 0.263, 0.3)
    public static let tintColor = UIColor("tintColor", 0, 0.478, 1)

    /// Apple's `init?(named:)` (an asset catalog color): the name is recorded; the components are
    /// unknown here (a shield is not drawn) and read as opaque gray. nil for an empty name.
    public convenience init?(named name: String) {
        guard !name.isEmpty else { return nil }
        self.init("named:" + name, 0.5, 0.5, 0.5)
    }

    /// Apple's `init(red:green:blue:alpha:)` with `CGFloat`s.
    public convenience init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        self.init(red: Double(red), green: Double(green), blue: Double(blue), alpha: Double(alpha))
    }

    /// Apple's `init(hue:saturation:brightness:alpha:)` (HSB, each 0…1).
    public convenience init(hue: Double, saturation: Double, brightness: Double, alpha: Double) {
        let h = (hue - hue.rounded(.down)) * 6, i = Int(h) % 6, f = h - h.rounded(.down)
        let v = brightness, p = v * (1 - saturation), q = v * (1 - saturation * f), t = v * (1 - saturation * (1 - f))
        let (r, g, b): (Double, Double, Double) = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i]
        self.init(red: r, green: g, blue: b, alpha: alpha)
    }

    /// Apple's `init(dynamicProvider:)`: resolved for the light appearance (the one iOS draws a
    /// shield with unless the device is in dark mode, which the harness does not model).
    public convenience init(dynamicProvider: (UITraitCollection) -> UIColor) {
        let c = dynamicProvider(UITraitCollection(userInterfaceStyle: .light))
        self.init(c.name ?? "dynamic", c.redComponent, c.greenComponent, c.blueComponent, c.alphaComponent)
    }

    /// Apple's `getRed(_:green:blue:alpha:)`.
    @discardableResult
    public func getRed(
        _ red: UnsafeMutablePointer<CGFloat>?, green: UnsafeMutablePointer<CGFloat>?, blue: UnsafeMutablePointer<CGFloat>?,
        alpha: UnsafeMutablePointer<CGFloat>?
    ) -> Bool {
        red?.pointee = CGFloat(redComponent)
        green?.pointee = CGFloat(greenComponent)
        blue?.pointee = CGFloat(blueComponent)
        alpha?.pointee = CGFloat(alphaComponent)
        return true
    }
}

/// Apple's `UITraitCollection`, as far as a dynamic color asks it.
public struct UITraitCollection: Sendable, Equatable {
    public var userInterfaceStyle: UIUserInterfaceStyle
    public init(userInterfaceStyle: UIUserInterfaceStyle) { self.userInterfaceStyle = userInterfaceStyle }
}

/// Apple's `UIUserInterfaceStyle`.
public enum UIUserInterfaceStyle: Int, Sendable, Equatable {
    case unspecified, light, dark
}
