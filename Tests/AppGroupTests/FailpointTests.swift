import AppGroup
import Testing

/// The failpoint grammar (fail-rs / fail(9): `label=[p%][n*]action[(arg)]`, chained with `->`) and
/// its evaluation: counts used up in order, probabilities drawn from the seed, `#n` passes.
@Suite(.timeLimit(.minutes(1))) struct FailpointTests {
    @Test func parsesAChainWithProbabilityCountAndArgument() throws {
        let p = try Failpoint.parse("host-app:defaults:group.x/k#3=50%2*delay(20)->1*off->kill")
        #expect(p.label == "host-app:defaults:group.x/k")
        #expect(p.occurrence == 3)
        #expect(p.process == "host-app")
        #expect(p.terms == [
            .init(percent: 50, count: 2, action: .delay, milliseconds: 20), .init(count: 1, action: .off), .init(action: .kill),
        ])
        // Printed back as it was written (the harness passes it to the stand-ins so).
        #expect(p.description == "host-app:defaults:group.x/k#3=50%2*delay(20)->1*off->kill")
        #expect(try Failpoint.parse(p.description) == p)
    }

    /// Each bad spec names what is wrong and the character where it starts.
    @Test(arguments: [
        ("host-app:defaults:k=explode", 20, "unknown action 'explode'"),
        ("host-app:defaults:k", 19, "expected label=action"),
        ("host-app:defualts:k=kill", 9, "unknown crash point kind 'defualts'"),
        ("hots-app:defaults:k=kill", 0, "unknown process 'hots-app'"),
        ("host-app:defaults:k=stop", 24, "stop takes milliseconds"),
        ("host-app:defaults:k=kill(5)", 24, "kill takes no argument"),
        ("host-app:defaults:k=150%kill", 20, "0 < p <= 100"),
        ("host-app:defaults:k=0*kill", 20, "a count is a whole number"),
        ("host-app:defaults:k#0=kill", 19, "the pass number"),
        ("host-app:defaults:k#+3=kill", 19, "the pass number"),
        ("host-app:defaults:k=kill->", 26, "empty term"),
        ("host-app=kill", 0, "must be <process>:<kind>"),
        ("host-app:defaults:k=delay(700000)", 25, "0...600000"),
    ])
    func aBadSpecSaysWhatAndWhere(spec: String, offset: Int, words: String) {
        #expect(throws: Failpoint.ParseError.self) { try Failpoint.parse(spec, processes: ["host-app", "monitor-extension"]) }
        do {
            _ = try Failpoint.parse(spec, processes: ["host-app", "monitor-extension"])
        } catch {
            #expect(error.message.contains(words), "\(error.message)")
            #expect(error.offset == offset, "\(spec): offset \(error.offset)")
        }
    }

    /// fail-rs' order: a used-up count skips the term; a count is used before the draw.
    @Test func countsAreUsedUpInOrderThenTheChainFallsThrough() throws {
        let p = try Failpoint.parse("a:step:x=2*off->1*kill->error")
        var remaining = p.initialCounts
        let actions = (1...5).map { p.evaluate(pass: $0, remaining: &remaining, seed: 1)?.action }
        #expect(actions == [.off, .off, .kill, .error, .error])
    }

    @Test func anOccurrenceActsAtThatPassOnly() throws {
        let p = try Failpoint.parse("a:step:x#2=kill")
        var remaining = p.initialCounts
        let actions = (1...3).map { p.evaluate(pass: $0, remaining: &remaining, seed: 1)?.action }
        #expect(actions == [nil, .kill, nil])
    }

    /// A probability draws from the seed, the label and the pass: the same in every run; about
    /// p% of passes over many; another seed gives another sequence.
    @Test func probabilityIsSeededAndAboutRight() throws {
        let p = try Failpoint.parse("a:step:x=30%error")
        func fires(seed: UInt64) -> [Bool] {
            var remaining = p.initialCounts
            return (1...2000).map { p.evaluate(pass: $0, remaining: &remaining, seed: seed) != nil }
        }
        #expect(fires(seed: 7) == fires(seed: 7))
        #expect(fires(seed: 7) != fires(seed: 8))
        let share = Double(fires(seed: 7).filter { $0 }.count) / 2000
        #expect(share > 0.25 && share < 0.35, "\(share)")
    }
}
