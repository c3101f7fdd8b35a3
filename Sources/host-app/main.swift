// The FocusPledge host app (Flutter app + NativeBridge) as a process. See StandIns/HostAppShell.swift.
import StandIns

do {
    try HostAppShell(context: StandInContext(process: "host-app")).run()
} catch {
    StandInContext.fail("host-app", "\(error)")
}
