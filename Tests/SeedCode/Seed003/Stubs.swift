import FamilyControls
import React

/// `ScreenTimeModule.swift`, which seed 003 says to "add this method" to and does not show:
/// an RCTEventEmitter holding the picked tokens.
final class ScreenTimeModule: RCTEventEmitter {
    var selectedAppTokens: Set<ApplicationToken> = []

    func emitAppOpenedEvent(appToken: String) { sendEvent(withName: "onAppOpened", body: ["appToken": appToken]) }
}
