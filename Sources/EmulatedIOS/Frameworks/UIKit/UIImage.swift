/// An image by name (`UIImage(systemName:)`, `UIImage(named:)`): a shield records which icon it
/// asked for; nothing is drawn.
public final class UIImage: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    public let isSystemImage: Bool

    public init?(systemName: String) {
        guard !systemName.isEmpty else { return nil }
        name = systemName
        isSystemImage = true
    }

    public init?(named: String) {
        guard !named.isEmpty else { return nil }
        name = named
        isSystemImage = false
    }

    public var description: String { isSystemImage ? "system:\(name)" : name }

    public static func == (a: UIImage, b: UIImage) -> Bool { a.name == b.name && a.isSystemImage == b.isSystemImage }

    public func hash(into h: inout Hasher) {
        h.combine(name)
        h.combine(isSystemImage)
    }
}

/// `UIBlurEffect.Style`, for a shield's background.
public enum UIBlurEffect {
    public enum Style: String, Sendable, Equatable, CaseIterable {
        case extraLight, light, dark, regular, prominent
        case systemUltraThinMaterial, systemThinMaterial, systemMaterial, systemThickMaterial, systemChromeMaterial
        case systemUltraThinMaterialLight, systemThinMaterialLight, systemMaterialLight, systemThickMaterialLight, systemChromeMaterialLight
        case systemUltraThinMaterialDark, systemThinMaterialDark, systemMaterialDark, systemThickMaterialDark, systemChromeMaterialDark
    }
}

extension UIImage {
    /// Apple's `UIImage.RenderingMode`.
    public enum RenderingMode: Int, Sendable, Equatable {
        case automatic, alwaysOriginal, alwaysTemplate
    }

    /// Apple's `UIImage.SymbolConfiguration`: how a system image is drawn (recorded, not drawn).
    public struct SymbolConfiguration: Sendable, Equatable {
        public enum Scale: Int, Sendable, Equatable { case `default`, unspecified, small, medium, large }
        public var pointSize: Double?
        public var weight: UIImage.SymbolWeight?
        public var scale: Scale?
        public init(pointSize: CGFloat) { self.pointSize = Double(pointSize) }
        public init(pointSize: CGFloat, weight: UIImage.SymbolWeight) {
            self.pointSize = Double(pointSize)
            self.weight = weight
        }
        public init(pointSize: CGFloat, weight: UIImage.SymbolWeight, scale: Scale) {
            self.pointSize = Double(pointSize)
            self.weight = weight
            self.scale = scale
        }
        public init(scale: Scale) { self.scale = scale }
        public init(weight: UIImage.SymbolWeight) { self.weight = weight }
        public init(textStyle: UIFont.TextStyle) {}
        public init(hierarchicalColor: UIColor) {}
        public init(paletteColors: [UIColor]) {}
    }

    /// Apple's `UIImage.SymbolWeight`.
    public enum SymbolWeight: Int, Sendable, Equatable {
        case unspecified, ultraLight, thin, light, regular, medium, semibold, bold, heavy, black
    }

    /// Apple's `init?(systemName:withConfiguration:)`: the configuration is not recorded.
    public convenience init?(systemName: String, withConfiguration configuration: SymbolConfiguration?) {
        self.init(systemName: systemName)
    }

    /// Apple's `withTintColor(_:)`: the same image (a shield records which icon, not its tint).
    public func withTintColor(_ color: UIColor) -> UIImage { self }
    /// Apple's `withTintColor(_:renderingMode:)`.
    public func withTintColor(_ color: UIColor, renderingMode: RenderingMode) -> UIImage { self }
    /// Apple's `withRenderingMode(_:)`.
    public func withRenderingMode(_ renderingMode: RenderingMode) -> UIImage { self }
    /// Apple's `applyingSymbolConfiguration(_:)`.
    public func applyingSymbolConfiguration(_ configuration: SymbolConfiguration) -> UIImage? { self }
    /// Apple's `size`: nothing is loaded here, so zero.
    public var size: CGSize { .zero }
}
