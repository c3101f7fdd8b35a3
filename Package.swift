// swift-tools-version: 6.0
import PackageDescription

// Layers (docs/PROTOCOL.md, ../shared/DESIGN.md), bottom to top:
//   CInotifyTools, CSystemShims  C seams onto the kernel
//   AppGroup                     on-disk protocol + App Group primitives (defaults, notify, heartbeats, clock)
//   ScreenTimeShims              Apple-shaped ManagedSettings / DeviceActivity / ShieldAction types
//   FocusPledge                  seed 000's protocol as pure state machines (as-written, hardened)
//   History                      trace lines and the merged history
//   Settlement                   the settlement-server stand-in (Hummingbird)
//   Supervision                  children that die with us
//   HarnessKit                   scenarios, runner, nemesis, checkers, reports, doctor, benchmarks
//   executables                  harness, host-app, monitor-extension, shield-action-extension, settlement-server
let package = Package(
    name: "ScreenTimeHarness",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "AppGroup", targets: ["AppGroup"]),
        .executable(name: "harness", targets: ["harness"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        .systemLibrary(name: "CInotifyTools", path: "Sources/CInotifyTools"),
        .target(name: "CSystemShims", path: "Sources/CSystemShims"),
        .target(name: "AppGroup", dependencies: ["CInotifyTools", "CSystemShims"], path: "Sources/AppGroup"),
        .target(name: "History", path: "Sources/History"),
        .target(name: "ScreenTimeShims", dependencies: ["AppGroup", "History"], path: "Sources/ScreenTimeShims"),
        .target(name: "FocusPledge", dependencies: ["AppGroup"], path: "Sources/FocusPledge"),
        .target(
            name: "Settlement",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "Sources/Settlement"
        ),
        .target(name: "Supervision", dependencies: ["CSystemShims"], path: "Sources/Supervision"),
        .target(
            name: "HarnessKit",
            dependencies: [
                "AppGroup", "Supervision", "CInotifyTools", "CSystemShims", "History", "FocusPledge", "ScreenTimeShims",
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Sources/HarnessKit"
        ),
        .target(
            name: "StandIns",
            dependencies: ["AppGroup", "History", "ScreenTimeShims", "FocusPledge", "Supervision"],
            path: "Sources/StandIns"
        ),
        .executableTarget(
            name: "harness",
            dependencies: [
                "AppGroup", "Supervision", "HarnessKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/harness"
        ),
        .executableTarget(name: "host-app", dependencies: ["StandIns"], path: "Sources/host-app"),
        .executableTarget(name: "monitor-extension", dependencies: ["StandIns"], path: "Sources/monitor-extension"),
        .executableTarget(name: "shield-action-extension", dependencies: ["StandIns"], path: "Sources/shield-action-extension"),
        .executableTarget(name: "settlement-server", dependencies: ["Settlement", "AppGroup"], path: "Sources/settlement-server"),
        // The baseline the notify benchmark is measured against: raw temp+rename+inotify in C.
        .executableTarget(name: "notify-pingpong-c", path: "Sources/notify-pingpong-c"),
        // Small executable the tests spawn as a separate process (writers, observers, heartbeats).
        .executableTarget(name: "sth-test-helper", dependencies: ["AppGroup", "Supervision"], path: "Sources/sth-test-helper"),
        .testTarget(
            name: "AppGroupTests",
            dependencies: ["AppGroup", "Supervision", "sth-test-helper"],
            path: "Tests/AppGroupTests"
        ),
        .testTarget(name: "FocusPledgeTests", dependencies: ["FocusPledge", "AppGroup"], path: "Tests/FocusPledgeTests"),
        .testTarget(
            name: "SettlementTests",
            dependencies: [
                "Settlement",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Tests/SettlementTests"
        ),
        .testTarget(
            name: "HarnessKitTests",
            dependencies: ["HarnessKit", "History", "FocusPledge", "Supervision"],
            path: "Tests/HarnessKitTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
