import DeviceActivity
import Foundation
import ManagedSettings
import ManagedSettingsUI
import StandInKit
import StandInRuntime
import SystemKit
import Testing
import ScreenTimeModel

final class Monitor: DeviceActivityMonitor, @unchecked Sendable {
    var calls: [String] = []
    override func intervalDidStart(for activity: DeviceActivityName) { calls.append("start \(activity.rawValue)") }
    override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        calls.append("threshold \(event.rawValue) \(activity.rawValue)")
    }
}

final class Closer: ShieldActionDelegate, @unchecked Sendable {
    var tokens: [ApplicationToken] = []
    override func handle(action: ManagedSettings.ShieldAction, for application: ApplicationToken, completionHandler: @escaping (ManagedSettings.ShieldActionResponse) -> Void) {
        tokens.append(application)
        // Answers later, from another thread, as extensions that do I/O first do.
        nonisolated(unsafe) let done = completionHandler
        let response: ManagedSettings.ShieldActionResponse = action == .primaryButtonPressed ? .close : .defer
        DispatchQueue.global().async { done(response) }
    }
}

final class Silent: ShieldActionDelegate, @unchecked Sendable {
    override func handle(action: ManagedSettings.ShieldAction, for application: ApplicationToken, completionHandler: @escaping (ManagedSettings.ShieldActionResponse) -> Void) {}
}

final class Shield: ShieldConfigurationDataSource, @unchecked Sendable {
    override func configuration(shielding application: Application) -> ShieldConfiguration {
        ShieldConfiguration(
            backgroundColor: .black, icon: UIImage(systemName: "hourglass"),
            title: ShieldConfiguration.Label(text: "Blocked: \(application.bundleIdentifier ?? "?")", color: .white),
            primaryButtonLabel: ShieldConfiguration.Label(text: "Close", color: .systemBlue))
    }
}

@Suite(.timeLimit(.minutes(3))) struct ExtensionEntryTests {
    @Test func monitorCallbacksReachTheSubclass() {
        let m = Monitor()
        #expect(FrameworkExtension.perform(FrameworkCall(.monitor(.intervalDidStart, activity: "a", event: nil)), on: .monitor(m)) == .called)
        #expect(FrameworkExtension.perform(.monitor(.eventDidReachThreshold, activity: "a", event: "e"), on: .monitor(m)) == .called)
        #expect(m.calls == ["start a", "threshold e a"])
        #expect(FrameworkExtension.perform(.monitor(.eventDidReachThreshold, activity: "a", event: nil), on: .monitor(m)) != .called)
    }

    @Test func aShieldActionRespondsThroughItsCompletionHandler() {
        let d = Closer()
        #expect(FrameworkExtension.perform(FrameworkCall(.shieldAction(.primaryButtonPressed, application: "com.social.feed")), on: .shieldAction(d)) == .responded(.close))
        #expect(FrameworkExtension.perform(.shieldAction(.secondaryButtonPressed, subject: .application("com.social.feed", category: nil)), on: .shieldAction(d)) == .responded(.defer))
        #expect(Set(d.tokens).count == 1)
        // A delegate that never answers is bounded.
        #expect(FrameworkExtension.perform(.shieldAction(.primaryButtonPressed, subject: .application("x", category: nil)), on: .shieldAction(Silent()), completionWallCapSeconds: 0.1)
            == .completionNotCalled(waitedSeconds: 0.1))
        // The base class answers .none for a web domain it does not override.
        #expect(FrameworkExtension.perform(.shieldAction(.primaryButtonPressed, subject: .webDomain("example.com", category: nil)), on: .shieldAction(d)) == .responded(.none))
    }

    @Test func aShieldConfigurationIsSummarised() {
        let out = FrameworkExtension.perform(FrameworkCall(.shieldConfiguration(application: "com.social.feed")), on: .shieldConfiguration(Shield()))
        guard case .configuration(let s) = out else {
            Issue.record("expected a configuration, got \(out)")
            return
        }
        #expect(s.fields["title"] == "Blocked: com.social.feed")
        #expect(s.fields["titleColor"] == "white")
        #expect(s.fields["primaryButton"] == "Close")
        #expect(s.fields["icon"] == "system:hourglass")
        #expect(FrameworkExtension.perform(.monitor(.intervalDidStart, activity: "a", event: nil), on: .shieldConfiguration(Shield())) != .called)
    }

    @Test func optionsParseTheOSsArguments() throws {
        let o = try FrameworkCallOptions.parse(["--action", "secondary", "--web-domain", "example.com", "--category", "social", "--delivery", "7"])
        #expect(try o.call(for: .shieldAction) == .shieldAction(.secondaryButtonPressed, subject: .webDomain("example.com", category: "social")))
        #expect(throws: (any Error).self) { try FrameworkCallOptions.parse(["--category", "social"]).call(for: .shieldConfiguration) }
    }

    /// Every call the emulated OS makes reads back, through the plain reader the stand-ins use, as
    /// the same framework call and the same options ArgumentParser reads from it.
    @Test(arguments: [
        ExtensionCall.monitor(.eventDidReachThreshold, activity: "focuspledge_s-1-1", event: "focuspledge_threshold"),
        ExtensionCall.monitor(.intervalDidEnd, activity: "night/1", event: nil),
        ExtensionCall.shieldAction(.secondaryButtonPressed, application: "com.social.feed"),
        ExtensionCall.shieldConfiguration(application: "com.video"),
    ])
    func everyCallTheOSMakesReadsBackAsTheSameCall(_ call: ExtensionCall) throws {
        let args = call.arguments(delivery: 12)
        let plain = try #require(FrameworkCallOptions.plain(args), "the harness's own line went to ArgumentParser: \(args)")
        let parsed = try FrameworkCallOptions.parse(args)
        let expected: FrameworkCall
        switch call {
        case .monitor(let callback, let activity, let event): expected = .monitor(callback, activity: activity, event: event)
        case .shieldAction(let action, let app): expected = .shieldAction(action, subject: .application(app, category: nil))
        case .shieldConfiguration(let app): expected = .shieldConfiguration(.application(app, category: nil))
        }
        #expect(try plain.call(for: call.point) == expected)
        #expect(try parsed.call(for: call.point) == expected)
        #expect(plain.delivery == "12" && parsed.delivery == "12")
        #expect(ExtensionCall.point(ofCallback: call.callbackName) == call.point)
    }

    /// A line the harness does not write is not read by the plain reader (nil: ArgumentParser
    /// reads it and says what is wrong): an option twice, a value that looks like an option, an
    /// unknown option, a flag twice, a missing value.
    @Test func thePlainReaderTakesOnlyTheHarnesssOwnLines() {
        let options: Set<String> = ["--activity", "--delivery"]
        let good = PlainCommandLine(["--activity", "a", "--quiet", "--delivery", "3"], options: options, flags: ["--quiet"])
        #expect(good?.values == ["--activity": "a", "--delivery": "3"] && good?.flags == ["--quiet"])
        #expect(PlainCommandLine(["--activity", "a", "--activity", "b"], options: options) == nil, "an option given twice")
        #expect(PlainCommandLine(["--activity", "--delivery", "3"], options: options) == nil, "a value that is an option")
        #expect(PlainCommandLine(["--activity", "-x"], options: options) == nil, "a value that looks like an option")
        #expect(PlainCommandLine(["--event", "e"], options: options) == nil, "an option this command does not take")
        #expect(PlainCommandLine(["--quiet", "--quiet"], options: options, flags: ["--quiet"]) == nil, "a flag twice")
        #expect(PlainCommandLine(["--activity"], options: options) == nil, "an option without its value")
    }
}
