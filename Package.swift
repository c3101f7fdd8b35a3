// swift-tools-version: 6.0
import PackageDescription

// Layers (see docs/PROTOCOL.md and ../shared/DESIGN.md), bottom to top:
//   CInotifyTools, CSystemShims  — C seams onto the kernel
//   AppGroup                     — on-disk protocol + App Group primitives (defaults, notify, heartbeats, clock)
//   Supervision                  — spawning children that die with us
//   harness                      — the CLI
let package = Package(
    name: "ScreenTimeHarness",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "AppGroup", targets: ["AppGroup"]),
        .executable(name: "harness", targets: ["harness"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(name: "CInotifyTools", path: "Sources/CInotifyTools"),
        .target(name: "CSystemShims", path: "Sources/CSystemShims"),
        .target(
            name: "AppGroup",
            dependencies: ["CInotifyTools", "CSystemShims"],
            path: "Sources/AppGroup"
        ),
        .target(
            name: "Supervision",
            dependencies: ["CSystemShims"],
            path: "Sources/Supervision"
        ),
        .target(
            name: "HarnessKit",
            dependencies: ["AppGroup", "Supervision", "CInotifyTools", "CSystemShims"],
            path: "Sources/HarnessKit"
        ),
        .executableTarget(
            name: "harness",
            dependencies: [
                "AppGroup", "Supervision", "HarnessKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/harness"
        ),
        // The baseline the notify benchmark is measured against: raw temp+rename+inotify in C.
        .executableTarget(name: "notify-pingpong-c", path: "Sources/notify-pingpong-c"),
        // Small executable the tests spawn as a separate process (writers, observers, heartbeats).
        .executableTarget(
            name: "sth-test-helper",
            dependencies: ["AppGroup", "Supervision"],
            path: "Sources/sth-test-helper"
        ),
        .testTarget(
            name: "AppGroupTests",
            dependencies: ["AppGroup", "Supervision", "sth-test-helper"],
            path: "Tests/AppGroupTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
