import Foundation
import Testing

/// The watchdog the blocking tests run under: a call that never returns — a thread parked for
/// good, an await whose continuation nobody resumes — fails its test within the bound.
@Suite(.timeLimit(.minutes(1))) struct BoundedTests {
    @Test func aThreadThatNeverReturnsFailsWithinTheBound() throws {
        let started = ContinuousClock.now
        #expect(throws: TimedOut.self) { try bounded(0.2) { () -> Int in while true { sleep(60) } } }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(try bounded(5) { 7 } == 7)
    }

    @Test func anAwaitThatIsNeverResumedFailsWithinTheBound() async throws {
        let started = ContinuousClock.now
        await #expect(throws: TimedOut.self) {
            try await bounded(0.2) { () async throws -> Int in
                try await withCheckedThrowingContinuation { (_: CheckedContinuation<Int, any Error>) in }  // never resumed
            }
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(try await bounded(5) { () async throws -> Int in 8 } == 8)
    }
}
