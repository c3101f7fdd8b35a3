// API probe: Apple's ManagedSettingsUI as a shield-configuration extension calls it
// (docs/FRAMEWORKS-API.md). Only members that compile against this package's ManagedSettingsUI
// are here; the rest are in not-provided.txt.
import ManagedSettings
import ManagedSettingsUI
import UIKit

/// `ShieldConfigurationDataSource.init()`
func probe_ShieldConfigurationDataSource_init() {
    final class DataSource: ShieldConfigurationDataSource {
        override init() { super.init() }
    }
    _ = DataSource()
}

/// `ShieldConfigurationDataSource.configuration(shielding:)` (an application)
func probe_ShieldConfigurationDataSource_configurationApplication() {
    final class DataSource: ShieldConfigurationDataSource {
        override func configuration(shielding application: Application) -> ShieldConfiguration {
            ShieldConfiguration(
                backgroundBlurStyle: .systemUltraThinMaterial, backgroundColor: .systemBackground,
                icon: UIImage(systemName: "hourglass"),
                title: ShieldConfiguration.Label(text: "\(application.localizedDisplayName ?? "This app") is limited", color: .label),
                subtitle: ShieldConfiguration.Label(text: "Time is up for today", color: .secondaryLabel),
                primaryButtonLabel: ShieldConfiguration.Label(text: "Close", color: .white),
                primaryButtonBackgroundColor: .systemBlue,
                secondaryButtonLabel: ShieldConfiguration.Label(text: "Ask for more time", color: .systemBlue))
        }
    }
    _ = DataSource()
}

/// `ShieldConfigurationDataSource.configuration(shielding:in:)` (an application, by category)
func probe_ShieldConfigurationDataSource_configurationApplicationInCategory() {
    final class DataSource: ShieldConfigurationDataSource {
        override func configuration(shielding application: Application, in category: ActivityCategory) -> ShieldConfiguration {
            ShieldConfiguration(title: ShieldConfiguration.Label(text: category.localizedDisplayName ?? "Limited", color: .label))
        }
    }
    _ = DataSource()
}

/// `ShieldConfigurationDataSource.configuration(shielding:)` (a web domain)
func probe_ShieldConfigurationDataSource_configurationWebDomain() {
    final class DataSource: ShieldConfigurationDataSource {
        override func configuration(shielding webDomain: WebDomain) -> ShieldConfiguration {
            ShieldConfiguration(title: ShieldConfiguration.Label(text: webDomain.domain ?? "This site", color: .label))
        }
    }
    _ = DataSource()
}

/// `ShieldConfigurationDataSource.configuration(shielding:in:)` (a web domain, by category)
func probe_ShieldConfigurationDataSource_configurationWebDomainInCategory() {
    final class DataSource: ShieldConfigurationDataSource {
        override func configuration(shielding webDomain: WebDomain, in category: ActivityCategory) -> ShieldConfiguration {
            super.configuration(shielding: webDomain, in: category)
        }
    }
    _ = DataSource()
}

/// `ShieldConfiguration.init(backgroundBlurStyle:backgroundColor:icon:title:subtitle:primaryButtonLabel:primaryButtonBackgroundColor:secondaryButtonLabel:)`
func probe_ShieldConfiguration_init() {
    let configuration = ShieldConfiguration(
        backgroundBlurStyle: .dark, backgroundColor: UIColor(red: 0.1, green: 0.1, blue: 0.2, alpha: 1), icon: UIImage(named: "ShieldIcon"),
        title: ShieldConfiguration.Label(text: "Blocked", color: .white), subtitle: nil,
        primaryButtonLabel: ShieldConfiguration.Label(text: "OK", color: .black), primaryButtonBackgroundColor: .white, secondaryButtonLabel: nil)
    _ = configuration
}

/// `ShieldConfiguration.init()` (every property the system default)
func probe_ShieldConfiguration_initDefault() {
    let configuration = ShieldConfiguration()
    _ = configuration
}

/// `ShieldConfiguration.backgroundBlurStyle`
func probe_ShieldConfiguration_backgroundBlurStyle(_ c: ShieldConfiguration) {
    let style: UIBlurEffect.Style? = c.backgroundBlurStyle
    _ = style
}

/// `ShieldConfiguration.backgroundColor`
func probe_ShieldConfiguration_backgroundColor(_ c: ShieldConfiguration) {
    let color: UIColor? = c.backgroundColor
    _ = color
}

/// `ShieldConfiguration.icon`
func probe_ShieldConfiguration_icon(_ c: ShieldConfiguration) {
    let icon: UIImage? = c.icon
    _ = icon
}

/// `ShieldConfiguration.title`, `.subtitle`
func probe_ShieldConfiguration_title(_ c: ShieldConfiguration) {
    let title: ShieldConfiguration.Label? = c.title
    let subtitle: ShieldConfiguration.Label? = c.subtitle
    _ = (title, subtitle)
}

/// `ShieldConfiguration.primaryButtonLabel`, `.primaryButtonBackgroundColor`
func probe_ShieldConfiguration_primaryButton(_ c: ShieldConfiguration) {
    let label: ShieldConfiguration.Label? = c.primaryButtonLabel
    let color: UIColor? = c.primaryButtonBackgroundColor
    _ = (label, color)
}

/// `ShieldConfiguration.secondaryButtonLabel`
func probe_ShieldConfiguration_secondaryButtonLabel(_ c: ShieldConfiguration) {
    let label: ShieldConfiguration.Label? = c.secondaryButtonLabel
    _ = label
}

/// `ShieldConfiguration.Label.init(text:color:)`
func probe_ShieldConfiguration_Label_init() {
    let label = ShieldConfiguration.Label(text: "Take a break", color: UIColor.systemGreen)
    _ = label
}

/// `ShieldConfiguration.Label.text`, `.color`
func probe_ShieldConfiguration_Label_textColor(_ label: ShieldConfiguration.Label) {
    let text: String = label.text
    let color: UIColor = label.color
    _ = (text, color)
}
