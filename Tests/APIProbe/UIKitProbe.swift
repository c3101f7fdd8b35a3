// API probe: the part of Apple's UIKit that shield configurations and extensions use
// (docs/FRAMEWORKS-API.md). Only members that compile against this package's UIKit are here; the
// rest are in not-provided.txt.
import UIKit

/// `UIColor.black`
func probe_UIColor_black() {
    let color: UIColor = .black
    _ = color
}

/// `UIColor.white`
func probe_UIColor_white() {
    let color: UIColor = .white
    _ = color
}

/// `UIColor.clear`
func probe_UIColor_clear() {
    let color: UIColor = .clear
    _ = color
}

/// `UIColor.gray`
func probe_UIColor_gray() {
    let color: UIColor = .gray
    _ = color
}

/// `UIColor.darkGray`
func probe_UIColor_darkGray() {
    let color: UIColor = .darkGray
    _ = color
}

/// `UIColor.lightGray`
func probe_UIColor_lightGray() {
    let color: UIColor = .lightGray
    _ = color
}

/// `UIColor.red`
func probe_UIColor_red() {
    let color: UIColor = .red
    _ = color
}

/// `UIColor.green`
func probe_UIColor_green() {
    let color: UIColor = .green
    _ = color
}

/// `UIColor.blue`
func probe_UIColor_blue() {
    let color: UIColor = .blue
    _ = color
}

/// `UIColor.orange`
func probe_UIColor_orange() {
    let color: UIColor = .orange
    _ = color
}

/// `UIColor.yellow`
func probe_UIColor_yellow() {
    let color: UIColor = .yellow
    _ = color
}

/// `UIColor.purple`
func probe_UIColor_purple() {
    let color: UIColor = .purple
    _ = color
}

/// `UIColor.brown`
func probe_UIColor_brown() {
    let color: UIColor = .brown
    _ = color
}

/// `UIColor.cyan`
func probe_UIColor_cyan() {
    let color: UIColor = .cyan
    _ = color
}

/// `UIColor.magenta`
func probe_UIColor_magenta() {
    let color: UIColor = .magenta
    _ = color
}

/// `UIColor.systemRed`
func probe_UIColor_systemRed() {
    let color: UIColor = UIColor.systemRed
    _ = color
}

/// `UIColor.systemGreen`
func probe_UIColor_systemGreen() {
    let color: UIColor = UIColor.systemGreen
    _ = color
}

/// `UIColor.systemBlue`
func probe_UIColor_systemBlue() {
    let color: UIColor = UIColor.systemBlue
    _ = color
}

/// `UIColor.systemOrange`
func probe_UIColor_systemOrange() {
    let color: UIColor = UIColor.systemOrange
    _ = color
}

/// `UIColor.systemYellow`
func probe_UIColor_systemYellow() {
    let color: UIColor = UIColor.systemYellow
    _ = color
}

/// `UIColor.systemPink`
func probe_UIColor_systemPink() {
    let color: UIColor = UIColor.systemPink
    _ = color
}

/// `UIColor.systemPurple`
func probe_UIColor_systemPurple() {
    let color: UIColor = UIColor.systemPurple
    _ = color
}

/// `UIColor.systemTeal`
func probe_UIColor_systemTeal() {
    let color: UIColor = UIColor.systemTeal
    _ = color
}

/// `UIColor.systemIndigo`
func probe_UIColor_systemIndigo() {
    let color: UIColor = UIColor.systemIndigo
    _ = color
}

/// `UIColor.systemMint`
func probe_UIColor_systemMint() {
    let color: UIColor = UIColor.systemMint
    _ = color
}

/// `UIColor.systemCyan`
func probe_UIColor_systemCyan() {
    let color: UIColor = UIColor.systemCyan
    _ = color
}

/// `UIColor.systemBrown`
func probe_UIColor_systemBrown() {
    let color: UIColor = UIColor.systemBrown
    _ = color
}

/// `UIColor.systemGray`
func probe_UIColor_systemGray() {
    let color: UIColor = UIColor.systemGray
    _ = color
}

/// `UIColor.systemGray2`
func probe_UIColor_systemGray2() {
    let color: UIColor = UIColor.systemGray2
    _ = color
}

/// `UIColor.systemGray3`
func probe_UIColor_systemGray3() {
    let color: UIColor = UIColor.systemGray3
    _ = color
}

/// `UIColor.systemGray4`
func probe_UIColor_systemGray4() {
    let color: UIColor = UIColor.systemGray4
    _ = color
}

/// `UIColor.systemGray5`
func probe_UIColor_systemGray5() {
    let color: UIColor = UIColor.systemGray5
    _ = color
}

/// `UIColor.systemGray6`
func probe_UIColor_systemGray6() {
    let color: UIColor = UIColor.systemGray6
    _ = color
}

/// `UIColor.label`
func probe_UIColor_label() {
    let color: UIColor = UIColor.label
    _ = color
}

/// `UIColor.secondaryLabel`
func probe_UIColor_secondaryLabel() {
    let color: UIColor = UIColor.secondaryLabel
    _ = color
}

/// `UIColor.tertiaryLabel`
func probe_UIColor_tertiaryLabel() {
    let color: UIColor = UIColor.tertiaryLabel
    _ = color
}

/// `UIColor.quaternaryLabel`
func probe_UIColor_quaternaryLabel() {
    let color: UIColor = UIColor.quaternaryLabel
    _ = color
}

/// `UIColor.systemBackground`
func probe_UIColor_systemBackground() {
    let color: UIColor = UIColor.systemBackground
    _ = color
}

/// `UIColor.secondarySystemBackground`
func probe_UIColor_secondarySystemBackground() {
    let color: UIColor = UIColor.secondarySystemBackground
    _ = color
}

/// `UIColor.tertiarySystemBackground`
func probe_UIColor_tertiarySystemBackground() {
    let color: UIColor = UIColor.tertiarySystemBackground
    _ = color
}

/// `UIColor.systemGroupedBackground`
func probe_UIColor_systemGroupedBackground() {
    let color: UIColor = UIColor.systemGroupedBackground
    _ = color
}

/// `UIColor.systemFill`
func probe_UIColor_systemFill() {
    let color: UIColor = UIColor.systemFill
    _ = color
}

/// `UIColor.separator`
func probe_UIColor_separator() {
    let color: UIColor = UIColor.separator
    _ = color
}

/// `UIColor.link`
func probe_UIColor_link() {
    let color: UIColor = UIColor.link
    _ = color
}

/// `UIColor.placeholderText`
func probe_UIColor_placeholderText() {
    let color: UIColor = UIColor.placeholderText
    _ = color
}

/// `UIColor.tintColor`
func probe_UIColor_tintColor() {
    let color: UIColor = UIColor.tintColor
    _ = color
}

/// `UIColor.init(red:green:blue:alpha:)` (literals)
func probe_UIColor_initRedGreenBlueAlpha() {
    let color = UIColor(red: 0.2, green: 0.4, blue: 0.6, alpha: 1.0)
    _ = color
}

/// `UIColor.init(red:green:blue:alpha:)` (`CGFloat` values)
func probe_UIColor_initRedGreenBlueAlpha_CGFloat() {
    let r: CGFloat = 52 / 255, g: CGFloat = 199 / 255, b: CGFloat = 89 / 255
    let color = UIColor(red: r, green: g, blue: b, alpha: CGFloat(1))
    _ = color
}

/// `UIColor.init(white:alpha:)`
func probe_UIColor_initWhiteAlpha() {
    let color = UIColor(white: 0.9, alpha: 1)
    _ = color
}

/// `UIColor.init(named:)`
func probe_UIColor_initNamed() {
    let color: UIColor? = UIColor(named: "AccentColor")
    _ = color
}

/// `UIColor.init(hue:saturation:brightness:alpha:)`
func probe_UIColor_initHueSaturationBrightnessAlpha() {
    let color = UIColor(hue: 0.6, saturation: 0.8, brightness: 0.9, alpha: 1)
    _ = color
}

/// `UIColor.init(dynamicProvider:)`
func probe_UIColor_initDynamicProvider() {
    let color = UIColor { traits in traits.userInterfaceStyle == .dark ? .white : .black }
    _ = color
}

/// `UIColor.withAlphaComponent(_:)`
func probe_UIColor_withAlphaComponent() {
    let color = UIColor.systemBlue.withAlphaComponent(0.5)
    _ = color
}

/// `UIColor.getRed(_:green:blue:alpha:)`
func probe_UIColor_getRed() {
    var r: CGFloat = 0, g: CGFloat = 0, b: CGFloat = 0, a: CGFloat = 0
    _ = UIColor.systemRed.getRed(&r, green: &g, blue: &b, alpha: &a)
}

/// `UIColor` (Equatable)
func probe_UIColor_Equatable() {
    _ = UIColor.white == UIColor(white: 1, alpha: 1)
}

/// `UIImage.init(systemName:)`
func probe_UIImage_initSystemName() {
    let image: UIImage? = UIImage(systemName: "hourglass")
    _ = image
}

/// `UIImage.init(named:)`
func probe_UIImage_initNamed() {
    let image: UIImage? = UIImage(named: "ShieldIcon")
    _ = image
}

/// `UIImage.withTintColor(_:)`
func probe_UIImage_withTintColor() {
    let image = UIImage(systemName: "lock.fill")?.withTintColor(.white)
    _ = image
}

/// `UIImage.withTintColor(_:renderingMode:)`
func probe_UIImage_withTintColorRenderingMode() {
    let image = UIImage(systemName: "lock.fill")?.withTintColor(.systemRed, renderingMode: .alwaysOriginal)
    _ = image
}

/// `UIImage.withRenderingMode(_:)`
func probe_UIImage_withRenderingMode() {
    let image = UIImage(named: "Logo")?.withRenderingMode(.alwaysTemplate)
    _ = image
}

/// `UIImage.init(systemName:withConfiguration:)` / `UIImage.SymbolConfiguration.init(pointSize:weight:)`
func probe_UIImage_initSystemNameWithConfiguration() {
    let config = UIImage.SymbolConfiguration(pointSize: 60, weight: .bold)
    let image = UIImage(systemName: "hourglass", withConfiguration: config)
    _ = image
}

/// `UIImage.applyingSymbolConfiguration(_:)`
func probe_UIImage_applyingSymbolConfiguration() {
    let image = UIImage(systemName: "moon")?.applyingSymbolConfiguration(UIImage.SymbolConfiguration(scale: .large))
    _ = image
}

/// `UIImage.size`
func probe_UIImage_size(_ image: UIImage) {
    let size: CGSize = image.size
    _ = size
}

/// `UIFont.systemFont(ofSize:)`
func probe_UIFont_systemFontOfSize() {
    let font = UIFont.systemFont(ofSize: 17)
    _ = font
}

/// `UIFont.systemFont(ofSize:weight:)`
func probe_UIFont_systemFontOfSizeWeight() {
    let font = UIFont.systemFont(ofSize: 24, weight: .semibold)
    _ = font
}

/// `UIFont.boldSystemFont(ofSize:)`
func probe_UIFont_boldSystemFont() {
    let font = UIFont.boldSystemFont(ofSize: 20)
    _ = font
}

/// `UIFont.preferredFont(forTextStyle:)`
func probe_UIFont_preferredFont() {
    let font = UIFont.preferredFont(forTextStyle: .headline)
    _ = font
}

/// `UIFont.init(name:size:)`
func probe_UIFont_initNameSize() {
    let font: UIFont? = UIFont(name: "Helvetica", size: 14)
    _ = font
}

/// `UIBlurEffect.Style` (the styles a shield's background takes)
func probe_UIBlurEffect_Style() {
    let styles: [UIBlurEffect.Style] = [.extraLight, .light, .dark, .regular, .prominent, .systemUltraThinMaterial, .systemThinMaterial,
        .systemMaterial, .systemThickMaterial, .systemChromeMaterial, .systemMaterialLight, .systemMaterialDark, .systemUltraThinMaterialDark]
    _ = styles
}

/// `CGFloat`, `CGSize`, `CGRect` (Core Graphics geometry, which UIKit brings)
func probe_CoreGraphics_geometry() {
    let size = CGSize(width: 10, height: 20)
    let rect = CGRect(origin: .zero, size: size)
    let scale: CGFloat = rect.width / 2
    _ = scale
}
