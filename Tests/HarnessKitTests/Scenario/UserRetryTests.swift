import Foundation
import HarnessKit
import Testing

/// `user.retry`: whether the scripted user taps again when the app died in their tap — the
/// scenario's choice, the pack's default, a draw per tap that replays exactly.
@Suite(.timeLimit(.minutes(1))) struct UserRetryTests {
    static let catalog = SystemCatalog([AnySystemPack(PingPongPack())])

    static func scenario(_ user: String) throws -> Scenario {
        try Scenario.parse(
            yaml: """
                name: pp
                system: pingpong
                duration: 10m
                rally: { serves: 5, everySeconds: 60 }
                \(user)
                """, file: "pp.yaml", systems: catalog)
    }

    @Test func theScenarioSaysWhetherTheUserTapsAgainElseThePackDoes() throws {
        #expect(try Self.scenario("").userRetry == nil)
        #expect(try Self.scenario("").retry == .always, "PingPong's default")
        #expect(try Self.scenario("user: { retry: never }").retry == .never)
        #expect(try Self.scenario("user: { retry: always }").retry == .always)
        #expect(try Self.scenario("user: { retry: 0.25 }").retry == .probability(0.25))
        #expect(try Self.scenario("user: {}").userRetry == nil)
    }

    @Test func aChoiceThatIsNotOneIsAnErrorAtItsPlace() {
        func error(_ user: String) -> String? {
            do {
                _ = try Self.scenario(user)
                return nil
            } catch { return "\(error)" }
        }
        for bad in ["sometimes", "1", "0", "1.5", "-0.5", "[never]", "yes"] {
            let e = error("user: { retry: \(bad) }")
            #expect(e?.contains("pp.yaml:5:") == true && e?.contains("user.retry: expected always, never, or a probability") == true, "\(bad): \(e ?? "accepted")")
        }
        #expect(error("user: { retries: never }")?.contains("unknown key 'user.retries'") == true)
        #expect(error("user: never")?.contains("user") == true)
    }

    @Test func aProbabilityIsDrawnPerTapFromTheSeedAloneAndComesOutNearIt() {
        let p = UserRetry.probability(0.3)
        let draws = (0..<20_000).map { p.retries(seed: 7, tap: $0) }
        let share = Double(draws.filter { $0 }.count) / Double(draws.count)
        #expect(share > 0.28 && share < 0.32, "\(share)")
        // The same seed and tap, the same choice; another seed, other choices.
        #expect((0..<20_000).map { p.retries(seed: 7, tap: $0) } == draws)
        #expect((0..<200).map { p.retries(seed: 8, tap: $0) } != Array(draws.prefix(200)))
        #expect((0..<100).allSatisfy { UserRetry.always.retries(seed: 1, tap: $0) && !UserRetry.never.retries(seed: 1, tap: $0) })
    }

    @Test func itReadsAsItIsWrittenAndTheOtherWayIsTheOppositeUser() throws {
        for text in ["always", "never", "0.5"] { #expect(UserRetry(text)?.description == text) }
        #expect(UserRetry.always.otherWay == .never && UserRetry.never.otherWay == .always && UserRetry.probability(0.5).otherWay == .never)
        let json = try JSONEncoder().encode([UserRetry.probability(0.25)])
        #expect(String(decoding: json, as: UTF8.self) == #"["0.25"]"#)
        #expect(try JSONDecoder().decode([UserRetry].self, from: json) == [.probability(0.25)])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([UserRetry].self, from: Data(#"["often"]"#.utf8)) }
    }
}
