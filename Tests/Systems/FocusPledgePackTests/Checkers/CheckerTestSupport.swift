@testable import FocusPledgePack
import HarnessKit
import History
import Testing

/// Shared histories and assertions for the FocusPledge checker tests.
enum CheckerFixture {
    /// One clean session settled SUCCESS and one violated session settled FAILURE, hardened-style.
    static func cleanHardenedRun() -> [HistoryEvent] {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.wait(deviceMinutes: 31)
        b.hostSettles("s1", "SUCCESS", host: host)
        b.wait(deviceMinutes: 2)
        b.startSession("s2", host: host, minutes: 30)
        b.wait(deviceMinutes: 5)
        b.violation("s2")
        b.hostSeesFailure("s2", host: host, afterMicroseconds: 250)
        b.hostSettles("s2", "FAILURE", host: host)
        b.wait(deviceMinutes: 2)
        return b.finish()
    }

    /// One clean session of `minutes`, ended, then `settle` decides what the server does.
    static func cleanSession(settle: (inout HistoryBuilder, Int32) -> Void) -> [HistoryEvent] {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.wait(deviceMinutes: 31)
        settle(&b, host)
        return b.finish()
    }
}

extension CheckReport {
    /// The names of the invariants that failed, for `#expect(... == [...])`.
    var failedInvariants: Set<String> { Set(violations.map(\.invariant)) }

    func checked(_ invariant: FocusPledgeInvariant) -> Int? { result(invariant.rawValue)?.checkedCount }
}
