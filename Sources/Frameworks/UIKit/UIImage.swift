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
