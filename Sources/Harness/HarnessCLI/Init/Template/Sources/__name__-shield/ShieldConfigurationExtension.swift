// The shield-configuration extension's principal class, exactly as on iOS: what the shield over a
// blocked app shows. The harness records the configuration (it draws nothing).
import ManagedSettings
import ManagedSettingsUI
import UIKit
import __Name__Shared

final class ShieldConfigurationExtension: ShieldConfigurationDataSource {
    override func configuration(shielding application: Application) -> ShieldConfiguration {
        let ball = UserDefaults(suiteName: RallyNames.appGroup)?.integer(forKey: RallyNames.ball) ?? 0
        return ShieldConfiguration(
            backgroundBlurStyle: .systemMaterial,
            backgroundColor: UIColor(red: 0.1, green: 0.1, blue: 0.3, alpha: 1),
            icon: UIImage(systemName: "tennisball.fill"),
            title: ShieldConfiguration.Label(text: "Ball \(ball) is in play", color: .white),
            subtitle: ShieldConfiguration.Label(text: "Return it to lift the shield", color: .lightGray),
            primaryButtonLabel: ShieldConfiguration.Label(text: "Return", color: .white),
            primaryButtonBackgroundColor: .systemBlue)
    }
}
