/// Apple's `ShieldActionDelegate`: the principal class of a shield-action extension. The OS
/// starts the extension for one button press and calls one `handle` method; the extension must
/// call `completionHandler` exactly once (the entry point waits for it, bounded).
///
/// The base implementations answer `.none` (Apple documents none; an extension that does not
/// override a variant is taken to leave the shield as it is).
open class ShieldActionDelegate {
    public init() {}

    open func handle(action: ShieldAction, for application: ApplicationToken, completionHandler: @escaping (ShieldActionResponse) -> Void) {
        completionHandler(.none)
    }

    open func handle(action: ShieldAction, for webDomain: WebDomainToken, completionHandler: @escaping (ShieldActionResponse) -> Void) {
        completionHandler(.none)
    }

    open func handle(action: ShieldAction, for category: ActivityCategoryToken, completionHandler: @escaping (ShieldActionResponse) -> Void) {
        completionHandler(.none)
    }
}
