// swift-tools-version: 6.0
// Written by `harness init`: __Name__, a Screen Time app (host + shield-action extension) under
// ScreenTimeHarness. Replace the example's code with your app's own (README.md).
import PackageDescription

let harness = "__PACKAGE_ID__"

let package = Package(
    name: "__Name__",
    dependencies: [
        __DEPENDENCY__,
    ],
    targets: [
        // The app's own code, shared by the host and its extensions (on iOS: a framework both link).
        .target(name: "__Name__Shared", dependencies: [.product(name: "ScreenTimeFrameworks", package: harness)]),
        // The shield-action extension: the app's ShieldActionDelegate subclass, in one call.
        .executableTarget(
            name: "__name__-returner",
            dependencies: ["__Name__Shared", .product(name: "ScreenTimeStandIns", package: harness)]),
        // The shield-configuration extension: the app's ShieldConfigurationDataSource, in one call.
        .executableTarget(
            name: "__name__-shield",
            dependencies: ["__Name__Shared", .product(name: "ScreenTimeStandIns", package: harness)]),
        // The host app: its manager, driven by what the scenario's user does.
        .executableTarget(
            name: "__name__-host",
            dependencies: ["__Name__Shared", .product(name: "ScreenTimeStandIns", package: harness)]),
        // The harness, with every verb (run, explore, replay, shrink, …) and this app's system.
        .executableTarget(name: "__name__-harness", dependencies: [.product(name: "ScreenTimeHarness", package: harness)]),
    ]
)
