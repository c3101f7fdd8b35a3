// swift-tools-version: 6.0
import PackageDescription

// Layers, bottom to top, one folder of Sources/ each (docs/LAYOUT.md draws the graph): a module
// depends only on modules of its own folder or of one below (scripts/module-graph --check). The
// core imports no system pack; a test (NoCoreImportsAPackTests) keeps it that way.
//
// Sources/Core: the App Group product and the history's words
//   CSystemShims                 C seams onto the kernel (inotify, openat, pipe2, prctl, fork+exec)
//   PropertyList                 pure leaf: the values a suite holds
//   DeviceProtocol               the device root's on-disk protocol: safe files, clock, scheduler wire, notify names, heartbeat records
//   FaultInjection               crash points, failpoints, defaults faults
//   AppGroup                     the iOS-shaped App Group (suites, Darwin notifications, heartbeats); re-exports the three above
//   History                      trace lines (the one trace writer) and the merged history
// Sources/EmulatedIOS (docs/EMULATED-IOS.md: what app code calls, and the OS's side of system/)
//   ScreenTimeModel              pure: system/ record types (the app inbox's messages too), opaque tokens, Apple's schedule rules
//   OSFiles                  the one reader/writer of system/ files (bounded, atomic, posts), the app inbox
//   Frameworks/*                 app-facing, Apple-named: FamilyControls, ManagedSettings,
//                                ManagedSettingsUI, DeviceActivity, UserNotifications (+ UIKit's
//                                colors and images, CoreFoundation's Darwin notify center)
//   ScreenTimeOS                 harness side of system/: read registrations and stores (the shields as bundle ids), answer prompts
// Sources/Runtime: the stand-in runtime
//   SystemKit                    pure: what every pack's machines speak (Effect, extension calls, an in-memory device);
//                                a pack's model imports only it, PropertyList and ScreenTimeModel (LayeringTests)
//   StandInRuntime               effects carried out on a device (the interpreter), the in-process registry
//   StandInKit                   the stand-in shells: app run loop, extension runner, live device
//   CDeviceTime                  clock_gettime interposed: device time for app code (stand-ins only, and the harness's in-process ones)
// Sources/Harness: runs, judges, reports
//   Supervision                  children that die with us
//   CInotifyTools, TreeWatch     libinotifytools: a whole tree watched recursively (harness watch, tamper)
//   RunReport                    report.html and the suite index (history.jsonl -> Mustache -> HTML + SVG)
//   HarnessKit                   SystemPack, scenarios, runner (OS, process table, merge), checker kit, reports
//   HarnessCLI                   every verb of the CLI, as a library (HarnessCLI.main(systems:))
// Sources/Systems (one folder per seed system, the seeds' own Swift, and the executable that bundles them)
//   FocusPledge                  seed 000: Model (machines, keys, wire), Server, StandIns, Pack, executables
//   Pushin                       seed 002: Model (host and shield machines), StandIns (+ the seed's Swift), Pack
//   Enforcement                  seed 001: Model (rules engine, host and extension machines), Store (GRDB mirror), StandIns, Pack
//   Until, Exit, Rally           seeds 003 and 004, and the example pack (docs/ADDING-A-SYSTEM.md)
//   SeedCode                     the seeds' Swift blocks, compiled as written
//   SystemRegistry               the list of packs the harness ships
//   harness                      the CLI with the bundled packs
let package = Package(
    name: "ScreenTimeHarness",
    products: [
        .library(name: "AppGroup", targets: ["AppGroup"]),
        .library(
            name: "ScreenTimeFrameworks",
            targets: ["FamilyControls", "ManagedSettings", "ManagedSettingsUI", "DeviceActivity", "UserNotifications", "UIKit", "OSLog", "os", "AppGroupFoundation", "CFDarwinNotify"]),
        // A team's own harness executable: `HarnessCLI.main(systems:)` and its packs (the pack API:
        // SystemPack, roles, invariants, the checker kit, scenario sections).
        .library(name: "ScreenTimeHarness", targets: ["HarnessCLI", "HarnessKit", "SystemKit", "History", "ScreenTimeModel"]),
        // A team's stand-in executables: the app run loop, extensions in one call.
        .library(name: "ScreenTimeStandIns", targets: ["StandInKit", "StandInRuntime", "SystemKit", "AppGroup"]),
        .executable(name: "harness", targets: ["harness"]),
    ],
    // Every dependency pinned to one exact version (a determinism tool builds the same code every
    // time; Package.resolved stays out of git: its commit ids are this machine's package copies').
    // Transitive dependencies resolve from these pins to one version each (swift-crypto 4.5.2,
    // swift-nio-ssl 2.37.6, ...); declaring them here too would only add "not used" warnings.
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", exact: "0.2.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
        // Hummingbird's own event loops; the settlement server runs them on one thread.
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        // Named directly for the settlement server's own ServiceGroup (Hummingbird's, same version).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        // Tests only: property-based generators with shrinking, for the fuzz tests (Tests/Fuzz).
        .package(url: "https://github.com/x-sheep/swift-property-based", exact: "2.0.1"),
        // report.html is rendered from Mustache templates (Sources/Harness/RunReport/ReportTemplates.swift).
        .package(url: "https://github.com/hummingbird-project/swift-mustache", exact: "2.1.1"),
        // Seed 001's host mirrors the selected app ids into SQLite (the Enforcement pack only;
        // links the system libsqlite3: libsqlite3-dev, which scripts/lib.sh installs).
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // MARK: Core
        .target(name: "CSystemShims", path: "Sources/Core/CSystemShims"),
        // libinotifytools (libinotifytools0-dev, which scripts/lib.sh installs): the recursive
        // watch of a device root, for the harness only — participants' notify watchers read
        // inotify(7) themselves (one directory, the hot path).
        .systemLibrary(name: "CInotifyTools", path: "Sources/Harness/CInotifyTools", providers: [.apt(["libinotifytools0-dev"])]),
        .target(name: "TreeWatch", dependencies: ["CInotifyTools"], path: "Sources/Harness/TreeWatch"),
        // Date() in app code is device time: clock_gettime(CLOCK_REALTIME) interposed for the
        // threads that run app code (StandInKit.DeviceTime). Linked into the stand-ins, and into
        // `harness` too: explore's fast path runs stand-ins inside it (`--in-process`), whose app
        // code must read device time as in its own process; on every other thread of the harness it
        // passes the call through (a thread-local depth, 0 outside app code).
        .target(name: "CDeviceTime", path: "Sources/Runtime/CDeviceTime", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("m")]),
        // A pure leaf: the values a property list (and so a suite) holds; pack models read no more of the App Group.
        .target(name: "PropertyList", path: "Sources/Core/PropertyList"),
        // The device root's on-disk protocol: safe files, the clock, the scheduler wire, notify names, heartbeat records.
        .target(name: "DeviceProtocol", dependencies: ["CSystemShims", "PropertyList"], path: "Sources/Core/DeviceProtocol"),
        // What the harness injects into a stand-in: crash points, failpoints, defaults faults.
        .target(name: "FaultInjection", dependencies: ["DeviceProtocol"], path: "Sources/Core/FaultInjection"),
        // The iOS-shaped App Group (containers, suites, Darwin notifications, heartbeats), re-exporting the three below.
        .target(name: "AppGroup", dependencies: ["CSystemShims", "DeviceProtocol", "FaultInjection", "PropertyList"], path: "Sources/Core/AppGroup"),
        .target(name: "History", path: "Sources/Core/History"),
        // report.html and the suite index, from history.jsonl (+ report.json's verdicts): no system named.
        .target(
            name: "RunReport", dependencies: ["AppGroup", "History", .product(name: "Mustache", package: "swift-mustache")],
            path: "Sources/Harness/RunReport"),
        // Pure: what a pack's machines speak (effects, extension calls, the wire's values, an in-memory device).
        .target(name: "SystemKit", dependencies: ["PropertyList", "ScreenTimeModel"], path: "Sources/Runtime/SystemKit"),
        // What runs a machine's effects in a stand-in: the interpreter, the in-process registry, the command line.
        .target(name: "StandInRuntime", dependencies: ["AppGroup", "ScreenTimeModel", "SystemKit"], path: "Sources/Runtime/StandInRuntime"),
        .target(name: "Supervision", dependencies: ["CSystemShims"], path: "Sources/Harness/Supervision"),
        .target(
            name: "StandInKit",
            dependencies: [
                "AppGroup", "History", "ScreenTimeModel", "StandInRuntime", "SystemKit", "CSystemShims", "CDeviceTime",
                "DeviceActivity", "FamilyControls", "ManagedSettings", "ManagedSettingsUI", "OSLog", "OSFiles", "UserNotifications",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Runtime/StandInKit"
        ),
        .target(
            name: "HarnessKit",
            dependencies: [
                "AppGroup", "Supervision", "CSystemShims", "History", "StandInRuntime", "SystemKit",
                "ScreenTimeModel", "ScreenTimeOS", "OSFiles", "RunReport", "TreeWatch",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            path: "Sources/Harness/HarnessKit"
        ),
        // Every verb of the CLI, as a library: `HarnessCLI.main(systems:)` in a team's own executable.
        .target(
            name: "HarnessCLI",
            dependencies: [
                "AppGroup", "Supervision", "HarnessKit", "History", "RunReport", "TreeWatch",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Harness/HarnessCLI",
            // What `harness init` writes: embedded by scripts/gen-init-template (InitTemplateFiles.swift).
            exclude: ["Init/Template"]
        ),
        // This package's own harness: HarnessCLI with the bundled seed packs.
        .executableTarget(name: "harness", dependencies: ["HarnessCLI", "SystemRegistry"], path: "Sources/Systems/harness"),
        // The baseline the notify benchmark is measured against: raw temp+rename+inotify in C.
        .executableTarget(name: "notify-pingpong-c", path: "Sources/Harness/notify-pingpong-c"),
        // Small executable the tests spawn as a separate process (writers, observers, heartbeats,
        // ping-pong, the OS probe written against the Apple-named frameworks).
        .executableTarget(
            name: "sth-test-helper",
            dependencies: [
                "AppGroup", "Supervision", "ScreenTimeModel", "StandInKit", "SystemKit", "DeviceActivity", "FamilyControls", "ManagedSettings",
                "ManagedSettingsUI", "UIKit", "UserNotifications",
            ],
            path: "Sources/Harness/sth-test-helper"),

        // MARK: Emulated iOS — the shared model, the system/ files, the Apple-named frameworks, the harness side
        .target(name: "ScreenTimeModel", path: "Sources/EmulatedIOS/ScreenTimeModel"),
        .target(name: "OSFiles", dependencies: ["AppGroup", "ScreenTimeModel"], path: "Sources/EmulatedIOS/OSFiles"),
        // Foundation as an app in an App Group sees it: `UserDefaults(suiteName: "group.…")` is the
        // App Group. Every Apple-named module re-exports it (and Foundation, as Apple's do).
        .target(name: "AppGroupFoundation", dependencies: ["AppGroup", "CFDarwinNotify"], path: "Sources/EmulatedIOS/Frameworks/AppGroupFoundation"),
        .target(name: "UIKit", dependencies: ["AppGroupFoundation", "_Testing_UIKit"], path: "Sources/EmulatedIOS/Frameworks/UIKit"),
        // The cross-import overlay Swift Testing declares for UIKit (Overlay.swift says why).
        .target(name: "_Testing_UIKit", path: "Sources/EmulatedIOS/Frameworks/_Testing_UIKit"),
        // Apple's unified logging: `Logger` and `os_log` lines land in the process's trace.
        .target(name: "OSLog", dependencies: ["AppGroupFoundation"], path: "Sources/EmulatedIOS/Frameworks/OSLog"),
        // `import os` (Apple's base module of the same logging API).
        .target(name: "os", dependencies: ["OSLog"], path: "Sources/EmulatedIOS/Frameworks/os"),
        .target(name: "CFDarwinNotify", dependencies: ["AppGroup"], path: "Sources/EmulatedIOS/Frameworks/CFDarwinNotify"),
        .target(
            name: "ManagedSettings", dependencies: ["AppGroup", "AppGroupFoundation", "ScreenTimeModel", "OSFiles"],
            path: "Sources/EmulatedIOS/Frameworks/ManagedSettings"),
        .target(name: "ManagedSettingsUI", dependencies: ["ManagedSettings", "UIKit"], path: "Sources/EmulatedIOS/Frameworks/ManagedSettingsUI"),
        .target(
            name: "FamilyControls", dependencies: ["AppGroup", "AppGroupFoundation", "ManagedSettings", "ScreenTimeModel", "OSFiles"],
            path: "Sources/EmulatedIOS/Frameworks/FamilyControls"),
        .target(
            name: "DeviceActivity", dependencies: ["AppGroup", "AppGroupFoundation", "ManagedSettings", "ScreenTimeModel", "OSFiles"],
            path: "Sources/EmulatedIOS/Frameworks/DeviceActivity"),
        .target(
            name: "UserNotifications", dependencies: ["AppGroup", "AppGroupFoundation", "ScreenTimeModel", "OSFiles"],
            path: "Sources/EmulatedIOS/Frameworks/UserNotifications"),
        .target(name: "ScreenTimeOS", dependencies: ["AppGroup", "ScreenTimeModel", "OSFiles"], path: "Sources/EmulatedIOS/ScreenTimeOS"),

        // MARK: Systems — FocusPledge (seed 000); its as-written extensions and authorization run the seed's Swift (Seed000)
        .target(name: "FocusPledge", dependencies: ["PropertyList", "SystemKit"], path: "Sources/Systems/FocusPledge/Model"),
        .target(
            name: "FocusPledgeServer",
            dependencies: [
                "FocusPledge", "History", "AppGroup", "StandInRuntime", "SystemKit", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Systems/FocusPledge/Server"
        ),
        .target(
            name: "FocusPledgeStandIns",
            dependencies: [
                "FocusPledge", "Seed000", "StandInKit", "SystemKit", "AppGroup", "DeviceActivity", "FamilyControls", "ManagedSettings",
                "ManagedSettingsUI", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Systems/FocusPledge/StandIns"
        ),
        .target(
            name: "FocusPledgePack",
            dependencies: ["FocusPledge", "HarnessKit", "History", "ScreenTimeModel", "SystemKit"],
            path: "Sources/Systems/FocusPledge/Pack"
        ),
        .executableTarget(
            name: "sth-focuspledge", dependencies: ["FocusPledgeStandIns"],
            path: "Sources/Systems/FocusPledge/Executables/sth-focuspledge"
        ),
        .executableTarget(
            name: "sth-focuspledge-server",
            dependencies: [
                "FocusPledgeServer", "AppGroup",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Systems/FocusPledge/Executables/sth-focuspledge-server"
        ),

        // MARK: Systems — Rally (the example pack; docs/ADDING-A-SYSTEM.md)
        .target(name: "Rally", dependencies: ["PropertyList", "SystemKit"], path: "Sources/Systems/Rally/Model"),
        .target(
            name: "RallyStandIns",
            dependencies: ["Rally", "StandInKit", "SystemKit", "AppGroup", "ManagedSettings", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/Systems/Rally/StandIns"),
        .target(name: "RallyPack", dependencies: ["Rally", "HarnessKit", "History", "ScreenTimeModel", "SystemKit"], path: "Sources/Systems/Rally/Pack"),
        .executableTarget(name: "sth-rally", dependencies: ["RallyStandIns"], path: "Sources/Systems/Rally/Executables/sth-rally"),

        // MARK: Systems — Until (seed 003): as-written runs the seed's own Swift (module Seed003)
        .target(name: "Until", dependencies: ["PropertyList", "ScreenTimeModel", "SystemKit"], path: "Sources/Systems/Until/Model"),
        .target(
            name: "UntilStandIns",
            dependencies: [
                "Until", "Seed003", "StandInKit", "SystemKit", "AppGroup", "DeviceActivity", "FamilyControls", "ManagedSettings",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Systems/Until/StandIns"),
        .target(name: "UntilPack", dependencies: ["Until", "HarnessKit", "History", "ScreenTimeModel", "SystemKit"], path: "Sources/Systems/Until/Pack"),
        .executableTarget(name: "sth-until", dependencies: ["UntilStandIns"], path: "Sources/Systems/Until/Executables/sth-until"),

        // MARK: Systems — Exit (seed 004); its as-written extensions run the seed's Swift (Seed004)
        .target(name: "Exit", dependencies: ["PropertyList", "SystemKit"], path: "Sources/Systems/Exit/Model"),
        .target(
            name: "ExitStandIns",
            dependencies: [
                "Exit", "Seed004", "StandInKit", "SystemKit", "AppGroup", "DeviceActivity", "ManagedSettings", "ManagedSettingsUI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Systems/Exit/StandIns"),
        .target(name: "ExitPack", dependencies: ["Exit", "HarnessKit", "History", "ScreenTimeModel", "SystemKit"], path: "Sources/Systems/Exit/Pack"),
        .executableTarget(name: "sth-exit", dependencies: ["ExitStandIns"], path: "Sources/Systems/Exit/Executables/sth-exit"),

        // MARK: Systems — Pushin (seed 002); its as-written shield extension runs the seed's Swift (Seed002)
        .target(name: "Pushin", dependencies: ["PropertyList", "SystemKit", "ScreenTimeModel"], path: "Sources/Systems/Pushin/Model"),
        .target(
            name: "PushinStandIns",
            dependencies: [
                "Pushin", "Seed002", "StandInKit", "SystemKit", "AppGroup", "ManagedSettings", "UserNotifications",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Systems/Pushin/StandIns"),
        .target(name: "PushinPack", dependencies: ["Pushin", "HarnessKit", "History", "ScreenTimeModel", "SystemKit"], path: "Sources/Systems/Pushin/Pack"),
        .executableTarget(name: "sth-pushin", dependencies: ["PushinStandIns"], path: "Sources/Systems/Pushin/Executables/sth-pushin"),

        // MARK: Systems — Enforcement (seed 001: modes, unlock grants, re-shield at expiry; no seed code)
        .target(name: "Enforcement", dependencies: ["PropertyList", "SystemKit"], path: "Sources/Systems/Enforcement/Model"),
        .target(name: "EnforcementStore", dependencies: [.product(name: "GRDB", package: "GRDB.swift")], path: "Sources/Systems/Enforcement/Store"),
        .target(
            name: "EnforcementStandIns",
            dependencies: [
                "Enforcement", "EnforcementStore", "StandInKit", "SystemKit", "AppGroup", "DeviceActivity", "ManagedSettings", "ManagedSettingsUI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Systems/Enforcement/StandIns"),
        .target(
            name: "EnforcementPack", dependencies: ["Enforcement", "EnforcementStore", "AppGroup", "HarnessKit", "History", "ScreenTimeModel", "SystemKit"],
            path: "Sources/Systems/Enforcement/Pack"),
        .executableTarget(name: "sth-enforcement", dependencies: ["EnforcementStandIns"], path: "Sources/Systems/Enforcement/Executables/sth-enforcement"),

        // MARK: Systems — the registry
        .target(
            name: "SystemRegistry", dependencies: ["HarnessKit", "StandInKit", "StandInRuntime", "SystemKit", "FocusPledgePack", "FocusPledgeStandIns", "FocusPledgeServer", "ExitStandIns", "RallyPack", "UntilPack", "ExitPack", "PushinPack", "EnforcementPack"],
            path: "Sources/Systems/Registry"),

        // MARK: Seed code — the seeds' Swift blocks compiled against the frameworks (Sources/Systems/SeedCode, EDITS.md)
        // Stand-ins for what the seeds' apps link besides Screen Time (UIKit's app lifecycle, Flutter,
        // SwiftUI, React Native); compile-only. One module per seed: seeds reuse class names.
        .target(name: "SeedPlatform", path: "Sources/Systems/SeedCode/Stubs/SeedPlatform"),
        // Not named SwiftUI / React: a team's own package may have targets of those names.
        .target(name: "SeedSwiftUI", dependencies: ["SeedPlatform"], path: "Sources/Systems/SeedCode/Stubs/SeedSwiftUI"),
        .target(name: "SeedReact", path: "Sources/Systems/SeedCode/Stubs/SeedReact"),
        .target(
            name: "Seed000", dependencies: ["AppGroup", "DeviceActivity", "FamilyControls", "ManagedSettings", "SeedPlatform", "SeedSwiftUI"],
            path: "Sources/Systems/SeedCode/Seed000", swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(
            name: "Seed002", dependencies: ["AppGroup", "ManagedSettings", "SeedPlatform", "UserNotifications"],
            path: "Sources/Systems/SeedCode/Seed002", swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(
            name: "Seed003", dependencies: ["AppGroup", "CFDarwinNotify", "DeviceActivity", "FamilyControls", "ManagedSettings", "SeedReact"],
            path: "Sources/Systems/SeedCode/Seed003", swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(
            name: "Seed004",
            dependencies: ["AppGroup", "DeviceActivity", "FamilyControls", "ManagedSettings", "ManagedSettingsUI", "SeedReact", "SeedSwiftUI"],
            path: "Sources/Systems/SeedCode/Seed004", swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(
            name: "SeedCodeCompileTests", dependencies: ["AppGroup", "Seed000", "Seed002", "Seed003", "Seed004"],
            path: "Tests/SeedCode/CompileTests"),

        // MARK: Tests
        // What real extensions call, written from Apple's documentation: compiles against the
        // Apple-named modules (docs/FRAMEWORKS-API.md; not-provided.txt is what does not yet).
        .testTarget(
            name: "APIProbeTests",
            dependencies: [
                "FamilyControls", "ManagedSettings", "ManagedSettingsUI", "DeviceActivity", "UserNotifications", "UIKit", "OSLog", "os",
                "AppGroupFoundation",
            ],
            path: "Tests/APIProbe", exclude: ["not-provided.txt"]),
        .testTarget(name: "RunReportTests", dependencies: ["RunReport", "History"], path: "Tests/RunReportTests"),
        .testTarget(name: "ScreenTimeModelTests", dependencies: ["ScreenTimeModel"], path: "Tests/ScreenTimeModelTests"),
        .testTarget(
            name: "FrameworksTests",
            dependencies: [
                "AppGroup", "ScreenTimeModel", "OSFiles", "ScreenTimeOS", "StandInRuntime", "StandInKit", "SystemKit",
                "FamilyControls", "ManagedSettings", "ManagedSettingsUI", "DeviceActivity", "UserNotifications", "CFDarwinNotify",
                "AppGroupFoundation", "OSLog",
            ],
            path: "Tests/FrameworksTests"
        ),
        .testTarget(
            name: "AppGroupTests",
            dependencies: ["AppGroup", "Supervision", "sth-test-helper"],
            path: "Tests/AppGroupTests"
        ),
        .testTarget(
            name: "HarnessKitTests",
            dependencies: ["HarnessKit", "History", "Supervision", "SystemKit", "ScreenTimeModel", "AppGroup", "RunReport", "TreeWatch", "sth-test-helper"],
            path: "Tests/HarnessKitTests"
        ),
        .testTarget(
            name: "FocusPledgeTests",
            dependencies: [
                "FocusPledge", "FocusPledgeServer", "FocusPledgeStandIns", "StandInKit", "StandInRuntime", "SystemKit", "AppGroup",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tests/Systems/FocusPledgeTests"
        ),
        .testTarget(
            name: "FocusPledgeServerTests",
            dependencies: [
                "FocusPledgeServer", "FocusPledge", "History",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/Systems/FocusPledgeServerTests"
        ),
        // Bounded fuzzing of every format that crosses a process boundary; corpus in Tests/Fuzz/Corpus.
        .testTarget(
            name: "FuzzTests",
            dependencies: [
                "AppGroup", "HarnessKit", "History", "SystemRegistry",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            path: "Tests/Fuzz", exclude: ["Corpus"]
        ),
        .testTarget(
            name: "RallyTests", dependencies: ["Rally", "RallyPack", "HarnessKit", "History", "SystemKit", "AppGroup", "Supervision", "sth-rally"],
            path: "Tests/Systems/RallyTests"),
        .testTarget(
            name: "UntilTests",
            dependencies: ["Until", "UntilPack", "UntilStandIns", "Seed003", "HarnessKit", "History", "SystemKit", "AppGroup", "Supervision", "sth-until"],
            path: "Tests/Systems/UntilTests"),
        .testTarget(
            name: "ExitTests", dependencies: ["Exit", "ExitPack", "HarnessKit", "History", "SystemKit", "AppGroup", "Supervision", "sth-exit"],
            path: "Tests/Systems/ExitTests"),
        .testTarget(
            name: "EnforcementTests",
            dependencies: [
                "Enforcement", "EnforcementPack", "EnforcementStore", "HarnessKit", "History", "SystemKit", "AppGroup", "Supervision", "sth-enforcement",
            ],
            path: "Tests/Systems/EnforcementTests"),
        .testTarget(
            name: "PushinTests",
            dependencies: ["Pushin", "PushinPack", "Seed002", "HarnessKit", "History", "SystemKit", "AppGroup", "ScreenTimeModel", "sth-pushin"],
            path: "Tests/Systems/PushinTests"),
        .testTarget(
            name: "FocusPledgePackTests",
            dependencies: ["AppGroup", "FocusPledgePack", "FocusPledge", "FocusPledgeServer", "HarnessKit", "History", "Supervision", "SystemRegistry"],
            path: "Tests/Systems/FocusPledgePackTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
