import ScreenTimeModel

/// Apple's opaque token for an app, a category or a web domain. App code can compare, hash and
/// encode it, never open it: only the OS (the harness) maps it back (EMULATED-IOS.md §7.1).
public struct Token<T>: Codable, Hashable, Sendable {
    /// base64 of `<kind>:<identifier>`; internal to the frameworks.
    let opaque: String

    @_spi(ScreenTimeHarness) public init(opaque: String) { self.opaque = opaque }

    @_spi(ScreenTimeHarness) public var opaqueValue: String { opaque }

    /// Encoded as the bare opaque string, as the OS stores it.
    public init(from decoder: any Decoder) throws {
        opaque = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(opaque)
    }
}

public typealias ApplicationToken = Token<Application>
public typealias ActivityCategoryToken = Token<ActivityCategory>
public typealias WebDomainToken = Token<WebDomain>

/// The OS issues tokens (the FamilyActivityPicker, shield callbacks); the harness does it here.
@_spi(ScreenTimeHarness)
extension Token where T == Application {
    public init(bundleIdentifier: String) { self.init(opaque: OpaqueToken.encode(.application, bundleIdentifier)) }
}

@_spi(ScreenTimeHarness)
extension Token where T == ActivityCategory {
    public init(categoryIdentifier: String) { self.init(opaque: OpaqueToken.encode(.category, categoryIdentifier)) }
}

@_spi(ScreenTimeHarness)
extension Token where T == WebDomain {
    public init(domain: String) { self.init(opaque: OpaqueToken.encode(.webDomain, domain)) }
}
