// The host app as an executable: the adapter maps what iOS and the user do to the app's own calls
// (on iOS: its app delegate, its views' buttons, its Darwin notification observer).
import AppGroup
import Foundation
import StandInKit
import SystemKit
import __Name__Shared

final class HostAdapter: AppAdapter {
    let player = Player()

    var observedNotifications: [String] { [RallyNames.returnedNotification] }

    func handle(_ input: AppInput, now: Date, store: () -> [String: PropertyListValue]) -> [Effect] {
        switch input {
        case .launched:
            // Relaunched after iOS killed it: a ball returned meanwhile is won now.
            player.collectReturn()
        case .user(let tap) where tap.action == "serve":
            if let ball = tap["ball"].flatMap(Int.init) { player.serve(ball: ball) }
        case .notification(RallyNames.returnedNotification):
            player.collectReturn()
        default:
            break
        }
        return []
    }
}

ScreenTimeProcess.app(HostAdapter())
