import FamilyControls
import SeedReact

/// `ScreenTimeModule.swift`, which seed 003 says to "add this method" to and does not show:
/// an RCTEventEmitter holding the picked tokens.
final class ScreenTimeModule: RCTEventEmitter {
    var selectedAppTokens: Set<ApplicationToken> = []
    /// What the module sent to the JS side (`sendEvent`), in order: React Native's bridge hands each
    /// to the JS listeners; here `UntilNativeModule` hands them to the Until pack's JS side.
    var sentEvents: [(name: String, body: Any?)] = []

    override func sendEvent(withName name: String!, body: Any!) { sentEvents.append((name, body)) }

    func emitAppOpenedEvent(appToken: String) { sendEvent(withName: "onAppOpened", body: ["appToken": appToken]) }
}
