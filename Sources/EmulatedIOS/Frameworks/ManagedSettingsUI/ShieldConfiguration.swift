@_exported import ManagedSettings
@_exported import UIKit

/// Apple's `ShieldConfiguration`: how the shield over a blocked app or site looks. Every
/// property is optional; nil means the system's default.
public struct ShieldConfiguration: Sendable, Equatable {
    /// Apple's `ShieldConfiguration.Label` — its only initialiser takes both text and color.
    public struct Label: Sendable, Equatable {
        public let text: String
        public let color: UIColor

        public init(text: String, color: UIColor) {
            self.text = text
            self.color = color
        }
    }

    public var backgroundBlurStyle: UIBlurEffect.Style?
    public var backgroundColor: UIColor?
    public var icon: UIImage?
    public var title: Label?
    public var subtitle: Label?
    public var primaryButtonLabel: Label?
    public var primaryButtonBackgroundColor: UIColor?
    public var secondaryButtonLabel: Label?

    public init(
        backgroundBlurStyle: UIBlurEffect.Style? = nil, backgroundColor: UIColor? = nil, icon: UIImage? = nil, title: Label? = nil,
        subtitle: Label? = nil, primaryButtonLabel: Label? = nil, primaryButtonBackgroundColor: UIColor? = nil,
        secondaryButtonLabel: Label? = nil
    ) {
        self.backgroundBlurStyle = backgroundBlurStyle
        self.backgroundColor = backgroundColor
        self.icon = icon
        self.title = title
        self.subtitle = subtitle
        self.primaryButtonLabel = primaryButtonLabel
        self.primaryButtonBackgroundColor = primaryButtonBackgroundColor
        self.secondaryButtonLabel = secondaryButtonLabel
    }
}
