import AppGroup
import Foundation
@testable import Seed000
@testable import Seed002
@testable import Seed003
@testable import Seed004
import Testing

// The seeds' Swift compiles against the frameworks (the build is the real test: see
// Sources/Systems/SeedCode/EDITS.md). One trivial runtime check per extracted file keeps this a real test
// target: it instantiates something from the file, or calls it where that touches no device root
// (code that opens an App Group suite or a framework store is only referenced: this process has
// no SCREENTIME_DEVICE_ROOT, and the env-based device is opened once per process). `@testable`:
// the seeds declare everything internal, as app code does.

@Suite(.timeLimit(.minutes(3))) struct Seed000Code {
    @Test func appGroupStorage() { #expect(Seed000.AppGroupStorage.self == Seed000.AppGroupStorage.self) }
    @Test func requestAuthorization() { let f: (@escaping FlutterResult) -> Void = Seed000.requestAuthorization(result:); _ = f }
    @Test func getAuthorizationStatus() { let f: (FlutterResult) -> Void = Seed000.getAuthorizationStatus(result:); _ = f }
    @Test func presentAppPicker() { let f: (@escaping FlutterResult) -> Void = Seed000.presentAppPicker(result:); _ = f }
    @Test func startNativeSession() { let f: (String, Int, @escaping FlutterResult) -> Void = Seed000.startNativeSession; _ = f }
    @Test func stopNativeSession() { let f: (String, FlutterResult) -> Void = Seed000.stopNativeSession; _ = f }
    @Test func checkSessionStatus() { let f: (String, FlutterResult) -> Void = Seed000.checkSessionStatus; _ = f }

    @Test func monitorExtension() {
        let m = Seed000.DeviceActivityMonitorExtension()
        m.intervalDidStart(for: DeviceActivityName("focuspledge_s-1"))  // only calls super
        #expect(m is DeviceActivityMonitor)
    }

    @Test func shieldActionExtension() { #expect(Seed000.ShieldActionExtension() is ShieldActionDelegate) }
}

@Suite(.timeLimit(.minutes(3))) struct Seed002Code {
    let manager: Seed002NotificationManager = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sth-seed002-\(UUID().uuidString)").path
        let sandbox = try! AppGroupContainer(sandboxOf: "host", deviceRoot: DeviceRoot(path: root))
        return Seed002NotificationManager(store: AppGroupFoundation.UserDefaults(store: try! SharedDefaults(container: sandbox, suiteName: "standard"), suiteName: nil))
    }()

    @Test func notificationManagerInterface() { #expect((any Seed002.NotificationManager).self == (any Seed002.NotificationManager).self) }

    @Test func notificationSpecification() {
        let c = seed002NotificationContent(generatedUUID: "u-1", expirationTimestamp: 1_771_300_300)
        #expect(c.title == "Earn Screen Time" && c.categoryIdentifier == "WORKOUT_REMINDER")
        #expect(c.userInfo["notificationId"] as? String == "u-1")
    }

    @Test func notificationCategory() {
        let c = seed002WorkoutCategory()
        #expect(c.actions.map(\.identifier) == ["START_WORKOUT", "LATER"] && c.options == .customDismissAction)
    }

    @Test func shieldExtensionSignal() { let f: (AppGroup.SharedDefaults) -> Void = seed002ShieldExtensionSignal; _ = f }
    @Test func notificationManagerCheck() { manager.checkForSignals() }  // reads an empty suite
    @Test func deduplication() { #expect(manager.shouldScheduleNotification("n-1")) }

    @Test func deepLink() {
        #expect(Seed002AppDelegate().application(UIApplication.shared, open: URL(string: "pushin://workout")!))
        #expect(!Seed002AppDelegate().application(UIApplication.shared, open: URL(string: "other://x")!))
    }

    @Test func flutterBridge() { seed002FlutterBridge(channel: FlutterMethodChannel(name: "com.pushin/navigation")) }

    @Test func shieldState() {
        let s = ShieldState(isActive: true, blockedApplications: [], pendingWorkoutNotification: nil, emergencyUnlocksRemaining: 2)
        #expect(s.emergencyUnlocksRemaining == 2)
    }

    @Test func permissionDenied() { manager.handlePermission(authorizationStatus: .denied) }
    @Test func appGroupFailure() { let f: () -> Void = seed002AppGroupFallback; _ = f }
    @Test func deliveryTracking() { let f: (Seed002NotificationManager) -> (String) -> Void = Seed002NotificationManager.notificationDelivered; _ = f }
}

@Suite(.timeLimit(.minutes(3))) struct Seed003Code {
    @Test func monitorExtension() {
        let m = UntilDeviceActivityMonitor()
        m.intervalDidStart(for: DeviceActivityName("untilMonitoring"))  // prints only
        #expect(m.appGroupId == "group.com.ibnuj.until")
    }

    @Test func startMonitoringWithoutAppsRejects() {
        var code: String?
        ScreenTimeModule().startMonitoring({ _ in }, rejecter: { c, _, _ in code = c })
        #expect(code == "NO_APPS")
    }

    @Test func checkForAppOpenedEvents() {
        let f: (ScreenTimeModule) -> (@escaping RCTPromiseResolveBlock, @escaping RCTPromiseRejectBlock) -> Void = ScreenTimeModule.checkForAppOpenedEvents
        _ = f
    }
}

@Suite(.timeLimit(.minutes(3))) struct Seed004Code {
    @Test func sharedStorageAccess() { let f: (Int) -> Void = seed004SharedStorageAccess; _ = f }
    @Test func clarityToShield() { #expect(Seed004ClarityShield() is ShieldConfigurationDataSource) }
    @Test func shieldAction() { #expect(Seed004ShieldActionExtension() is ShieldActionDelegate) }
    @Test func unlockWindow() { #expect(Seed004UnlockShield().lockedConfiguration().title?.text == "Locked") }
    @Test func appGroupStorageModule() { #expect(!Seed004.AppGroupStorage.requiresMainQueueSetup()) }
    @Test func screenTimeManager() { #expect(ScreenTimeManager() is NSObject) }

    @Test func appSelection() {
        _ = AppSelectionManager()
        _ = AppSelectionView { _ in }.body
    }

    @Test func monitorExtension() { #expect(ExitDeviceActivityMonitor().appGroup == "group.com.exit.app") }
    @Test func extensionHeartbeat() { let f: () -> Void = seed004Heartbeat; _ = f }
    @Test func timestampPrecedence() { #expect(seed004StampedClarity(defaults: nil, clarityScore: 80) == nil) }
    @Test func storageSize() { let f: () -> Void = seed004CheckStorageSize; _ = f }
    @Test func debugLogging() { let f: (String) -> Void = logToAppGroup; _ = f }
}
