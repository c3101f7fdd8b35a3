/// Apple's `ShieldConfigurationDataSource`: the principal class of a shield-configuration
/// extension. The OS asks it, once per shield it is about to show, for one of these four
/// configurations; the base implementations return the system's default (`ShieldConfiguration()`).
open class ShieldConfigurationDataSource {
    public init() {}

    open func configuration(shielding application: Application) -> ShieldConfiguration { ShieldConfiguration() }

    open func configuration(shielding application: Application, in category: ActivityCategory) -> ShieldConfiguration {
        ShieldConfiguration()
    }

    open func configuration(shielding webDomain: WebDomain) -> ShieldConfiguration { ShieldConfiguration() }

    open func configuration(shielding webDomain: WebDomain, in category: ActivityCategory) -> ShieldConfiguration {
        ShieldConfiguration()
    }
}
