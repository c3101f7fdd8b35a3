import AppGroup
import Foundation

/// Waits for the emulated OS to answer (an authorization prompt, a user's choice): checks
/// `answered` whenever `notification` is posted and at least every `sliceSeconds` of wall time,
/// until it returns a value, `deviceSeconds` of device time pass, or `wallCapSeconds` of real
/// time pass — whichever comes first. Never unbounded: a harness that does not script the answer
/// turns into `OSFileError.noAnswer`.
public enum AnswerWait {
    public static let sliceSeconds = 0.05

    public static func wait<T>(
        for what: String, on device: EmulatedDevice, notification: String, deviceSeconds: Double, wallCapSeconds: Double,
        _ answered: () -> T?
    ) throws(OSFileError) -> T {
        let woken = DispatchSemaphore(value: 0)
        let token = try? device.center.addObserver(notification) { _ in woken.signal() }
        defer { if let token { device.center.removeObserver(token) } }
        let deviceStart = device.clock.nowUnixSeconds()
        let wallStart = DispatchTime.now().uptimeNanoseconds
        func wallElapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - wallStart) / 1e9 }
        while true {
            if let v = answered() { return v }
            let deviceElapsed = device.clock.nowUnixSeconds() - deviceStart
            if deviceElapsed >= deviceSeconds || wallElapsed() >= wallCapSeconds {
                throw .noAnswer(what: what, waitedDeviceSeconds: deviceElapsed, waitedWallSeconds: wallElapsed())
            }
            if let yield = StandInEnvironment.waitForPost {
                // Inside the harness: its turn goes back until the answer's post (InProcessStandIns).
                yield(notification, (try? device.center.generation(notification)) ?? 0)
            } else {
                _ = woken.wait(timeout: .now() + sliceSeconds)
            }
        }
    }
}
