import ArgumentParser
import Foundation
import HarnessKit


struct SystemsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "systems", abstract: "List the seed systems the harness runs: variants, processes, invariants.")

    @Flag(help: "Print JSON instead of text.") var json = false

    func run() throws {
        let descriptors = HarnessCLI.catalog.packs.map(\.descriptor)
        if json {
            let enc = JSONEncoder()
            enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try enc.encode(descriptors), as: UTF8.self))
            return
        }
        for d in descriptors {
            print("\(d.id) — \(d.title) (seed \(d.seed))")
            print("  variants: \(d.variants.joined(separator: ", "))")
            print("  app groups: \(d.appGroups.joined(separator: ", "))")
            print("  scenario keys: \(d.scenarioKeys.joined(separator: ", "))")
            print("  settle (default): \(d.defaultSettleSeconds / 60) device minutes")
            print("  user.retry (default): \(d.userRetry) (whether the user taps again when the app died in their tap)")
            if !d.latencySeries.isEmpty {
                print("  latency series: " + d.latencySeries.map { "\($0.name) (\($0.what))" }.joined(separator: "; "))
            }
            print("  processes:")
            for r in d.roles {
                let target = r.nemesisTarget ? "nemesis target" : "not targeted"
                print("    \(r.name.padding(toLength: 26, withPad: " ", startingAt: 0)) \(r.lifetime), \(target): \(r.summary)")
            }
            print("  invariants:")
            for i in d.invariants {
                print("    \(i.name): \(i.promise)")
                print("      (\(i.source))")
            }
        }
    }
}
