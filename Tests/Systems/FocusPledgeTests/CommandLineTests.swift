import ArgumentParser
@testable import FocusPledgeStandIns
import StandInKit
import SystemKit
import Testing

/// `sth-focuspledge`'s plain-form start-up path reads exactly what ArgumentParser reads, and
/// leaves every other command line to it.
@Suite(.timeLimit(.minutes(3))) struct CommandLineTests {
    static let calls: [(role: String, call: ExtensionCall)] = [
        ("monitor-extension", .monitor(.intervalDidStart, activity: "focuspledge_s-1-1", event: nil)),
        ("monitor-extension", .monitor(.eventDidReachThreshold, activity: "a b", event: "limit")),
        ("shield-action-extension", .shieldAction(.secondaryButtonPressed, application: "com.social.feed")),
        ("shield-configuration-extension", .shieldConfiguration(application: "com.video.shorts")),
    ]

    static func fields(_ o: FrameworkCallOptions) -> [String?] {
        [o.callback?.rawValue, o.activity, o.event, o.action?.rawValue, o.app, o.webDomain, o.category, o.delivery]
    }

    static func options(_ command: ParsableCommand) -> FrameworkCallOptions? {
        switch command {
        case let c as MonitorExtensionCommand: c.call
        case let c as ShieldActionExtensionCommand: c.call
        case let c as ShieldConfigurationExtensionCommand: c.call
        default: nil
        }
    }

    @Test func theHarnessesCommandLinesReadAsArgumentParserReadsThem() throws {
        for (role, call) in Self.calls {
            let args = [role] + call.arguments(delivery: 42)
            let plain = try #require(FocusPledgeCommand.plainCommand(args), "\(args)")
            let parsed = try FocusPledgeCommand.parseAsRoot(args)
            #expect(type(of: plain) == type(of: parsed))
            let p = try #require(Self.options(plain)), q = try #require(Self.options(parsed))
            #expect(Self.fields(p) == Self.fields(q), "\(args)")
            #expect(p.delivery == "42")
        }
        #expect(FocusPledgeCommand.plainCommand(["host-app"]) is HostAppCommand)
    }

    @Test func everyOtherCommandLineGoesToArgumentParser() {
        for args in [
            [], ["host-app", "--help"], ["--help"], ["monitor-extension", "--callback=intervalDidStart", "--activity", "a"],
            ["monitor-extension", "--callback", "intervalDidStart", "--callback", "intervalDidEnd"],
            ["monitor-extension", "--callback", "notACallback", "--activity", "a"],
            ["monitor-extension", "--callback"], ["monitor-extension", "--activity", "-x"],
            ["shield-action-extension", "--action", "press", "--app", "a"], ["monitor-extension", "--unknown", "x"],
            ["monitor-extension", "extra"], ["no-such-role"],
        ] {
            #expect(FocusPledgeCommand.plainCommand(args) == nil, "\(args)")
        }
    }
}
