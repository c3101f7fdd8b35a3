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
}
