#!/usr/bin/env python3
"""Extracts the Swift code blocks of the seeds (docs/seeds of the checkout) into
Sources/Systems/SeedCode/Seed<NNN>/Seed<NNN>_<Block>.swift, VERBATIM except for the edits listed below, and
writes EDITS.md. Every edit is one seed line changed, removed or added, with the reason.

    Sources/Systems/SeedCode/extract.py            # regenerate the files and EDITS.md
    Sources/Systems/SeedCode/extract.py --check    # exit 1 if the files on disk differ from what it would write

Context (a function or class around statements or methods the seed shows without their
surroundings) is written around the seed text, outside the BEGIN/END markers, and is listed
separately from edits: it adds no seed line and changes none.
"""
import glob, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "docs", "seeds"))

# kind of edit: "seed bug" = the seed's Swift does not compile against Apple's SDK either;
# "platform" = Apple-only language feature (Linux has no Objective-C runtime), or an
# `import Foundation` that Linux's Foundation makes ambiguous beside `UserDefaults`;
# "not Swift" = text in a swift fence that is another language.
def edit(line, before, after, kind, why):
    return dict(line=line, before=before, after=after, kind=kind, why=why)

SWIFTUI_WHY = ("the stand-in module for SwiftUI is named SeedSwiftUI here, so that a team's own package may have a target named SwiftUI (target names are one namespace across a package graph)")
REACT_WHY = ("the stand-in module for React is named SeedReact here, so that a team's own package may have a target named React (target names are one namespace across a package graph)")
FOUNDATION_WHY = ("on Linux a file's own `import Foundation` makes `UserDefaults` ambiguous between Linux Foundation's and the App Group's the Screen Time modules bring (their re-export brings Foundation, as Apple's does)")

BLOCKS = [
    # ---------------------------------------------------------------- seed 000
    dict(seed="000", lines=(119, 192), file="Seed000_AppGroupStorage", title="Swift Helper Class (AppGroupStorage)",
         edits=[edit(119, "import Foundation", None, "platform", FOUNDATION_WHY)]),
    dict(seed="000", lines=(225, 236), file="Seed000_RequestAuthorization", title="MethodChannel 1. requestAuthorization"),
    dict(seed="000", lines=(258, 272), file="Seed000_GetAuthorizationStatus", title="MethodChannel 2. getAuthorizationStatus"),
    dict(seed="000", lines=(295, 313), file="Seed000_PresentAppPicker", title="MethodChannel 3. presentAppPicker",
         edits=[edit(296, "import SwiftUI", "import SeedSwiftUI", "platform", SWIFTUI_WHY)]),
    dict(seed="000", lines=(343, 381), file="Seed000_StartNativeSession", title="MethodChannel 4. startNativeSession", edits=[
        edit(355,
             "          let selection = try? NSKeyedUnarchiver.unarchivedObject(ofClass: FamilyActivitySelection.self, from: tokensData) else {",
             "          let selection = try? PropertyListDecoder().decode(FamilyActivitySelection.self, from: tokensData) else {",
             "seed bug",
             "`unarchivedObject(ofClass:from:)` requires an `NSObject & NSCoding` class; Apple's FamilyActivitySelection is a "
             "Codable struct, so this line does not compile on iOS either. Decoded as the Codable value it is."),
        edit(363,
             "    store.shield.applicationCategories = .all // optional: block entire categories",
             "    store.shield.applicationCategories = .all() // optional: block entire categories",
             "seed bug",
             "Apple declares `case all(except: Set<Token<Activity>> = [])`: a case with an associated value must be called, "
             "`.all` alone is a function value, not a policy."),
    ]),
    dict(seed="000", lines=(414, 429), file="Seed000_StopNativeSession", title="MethodChannel 5. stopNativeSession"),
    dict(seed="000", lines=(460, 469), file="Seed000_CheckSessionStatus", title="MethodChannel 6. checkSessionStatus"),
    dict(seed="000", lines=(501, 533), file="Seed000_MonitorExtension", title="DeviceActivity Monitor Extension"),
    dict(seed="000", lines=(543, 559), file="Seed000_ShieldActionExtension", title="ShieldActionExtension (optional)", edits=[
        edit(553,
             "            appBundleId: application.bundleIdentifier // if available",
             "            appBundleId: Application(token: application).bundleIdentifier // if available",
             "seed bug",
             "`ApplicationToken` has no `bundleIdentifier` (it is an opaque token). Apple's way to ask is "
             "`Application(token:).bundleIdentifier`, which compiles and is nil here: Apple documents it as set only in a "
             "shield-configuration extension (\"When you access this property outside that extension, the value is nil\"), "
             "as the seed's own comment ('if available') expects."),
    ]),
    # ---------------------------------------------------------------- seed 002
    dict(seed="002", lines=(23, 30), file=None, title="New App Group Keys",
         excluded="a table of keys and types in a swift fence (`\"should_show_workout\": Bool`), not Swift declarations"),
    dict(seed="002", lines=(46, 52), file="Seed002_NotificationManagerInterface", title="Notification Manager, Core Methods", edits=[
        edit(46, "class NotificationManager {", "protocol NotificationManager {", "seed bug",
             "the seed lists the methods without bodies; a class cannot declare them so, a protocol can, and then every "
             "signature (`UNNotificationResponse` included) is checked"),
    ]),
    dict(seed="002", lines=(78, 89), file="Seed002_NotificationSpecification", title="Notification Specification",
         segments=[dict(lines=(78, 89),
             before=["/// Context: the seed shows statements; they are this function's body. `generatedUUID` and",
                     "/// `expirationTimestamp` are not shown in the seed; they are its parameters.",
                     "func seed002NotificationContent(generatedUUID: String, expirationTimestamp: Double) -> UNMutableNotificationContent {"],
             after=["return content", "}"])]),
    dict(seed="002", lines=(95, 112), file="Seed002_NotificationCategory", title="Notification Category",
         segments=[dict(lines=(95, 112),
             before=["/// Context: the seed shows statements; they are this function's body.",
                     "func seed002WorkoutCategory() -> UNNotificationCategory {"],
             after=["return category", "}"])]),
    dict(seed="002", lines=(127, 131), file="Seed002_ShieldExtensionSignal", title="Signal Flow 1. Shield Extension writes to App Group",
         segments=[dict(lines=(127, 131),
             before=["import AppGroup", "",
                     "/// Context: statements of the shield extension; `store` (the App Group defaults) is not shown.",
                     "/// It is the App Group suite, `SharedDefaults` (PROTOCOL.md §3), as `UserDefaults(suiteName:)` is in",
                     "/// the other seeds; public because the Pushin pack's shield-action stand-in runs this code as written.",
                     "public func seed002ShieldExtensionSignal(store: SharedDefaults) {"],
             after=["}"])]),
    dict(seed="002", lines=(136, 141), file="Seed002_NotificationManagerCheck", title="Signal Flow 2. Notification Manager monitors and responds",
         segments=[dict(lines=(136, 141),
             before=["/// Context: statements of the notification manager (`Seed002NotificationManager` in Stubs.swift).",
                     "extension Seed002NotificationManager {",
                     "func checkForSignals() {"],
             after=["}", "}"])]),
    dict(seed="002", lines=(146, 158), file="Seed002_Deduplication", title="Signal Flow 3. Deduplication Logic",
         segments=[dict(lines=(146, 158),
             before=["/// Context: a method of the notification manager (`Seed002NotificationManager` in Stubs.swift).",
                     "extension Seed002NotificationManager {"],
             after=["}"])]),
    dict(seed="002", lines=(184, 191), file="Seed002_DeepLink", title="Deep Link Processing (AppDelegate)",
         segments=[dict(lines=(184, 191),
             before=["/// Context: a method of the app delegate (`Seed002AppDelegate` in Stubs.swift).",
                     "extension Seed002AppDelegate {"],
             after=["}"])]),
    dict(seed="002", lines=(198, 206), file="Seed002_FlutterBridge", title="Flutter Navigation Bridge",
         segments=[dict(lines=(198, 206),
             before=["/// Context: statements of the app delegate; `channel` is not shown in the seed.",
                     "func seed002FlutterBridge(channel: FlutterMethodChannel) {"],
             after=["}"])]),
    dict(seed="002", lines=(216, 221), file="Seed002_ShieldState", title="Shield State Persistence"),
    dict(seed="002", lines=(238, 242), file="Seed002_PermissionDenied", title="Permission Denied",
         segments=[dict(lines=(238, 242),
             before=["/// Context: statements of the notification manager; `authorizationStatus` is not shown in the seed.",
                     "extension Seed002NotificationManager {",
                     "func handlePermission(authorizationStatus: UNAuthorizationStatus) {"],
             after=["}", "}"])]),
    dict(seed="002", lines=(247, 250), file="Seed002_AppGroupFailure", title="App Group Failure",
         segments=[dict(lines=(247, 250),
             before=["/// Context: statements; the function is the context.", "func seed002AppGroupFallback() {"],
             after=["_ = fallbackStore", "}"])]),
    dict(seed="002", lines=(255, 263), file="Seed002_DeliveryTracking", title="Notification Delivery Failure",
         segments=[dict(lines=(255, 263),
             before=["/// Context: methods of the notification manager (`Seed002NotificationManager` in Stubs.swift).",
                     "extension Seed002NotificationManager {"],
             after=["}"])]),
    dict(seed="002", lines=(287, 292), file=None, title="Unit Testing (NotificationManagerTests)",
         excluded="a list of test names without bodies (a test plan, not Screen Time code)"),
    dict(seed="002", lines=(297, 301), file=None, title="Integration Testing (ShieldNotificationIntegrationTests)",
         excluded="a list of test names without bodies (a test plan, not Screen Time code)"),
    # ---------------------------------------------------------------- seed 003
    dict(seed="003", lines=(86, 162), file="Seed003_MonitorExtension", title="Step 4: Implement DeviceActivityMonitor"),
    dict(seed="003", lines=(184, 219), file="Seed003_StartMonitoring", title="Step 6: Start Monitoring in Main App",
         segments=[dict(lines=(184, 219),
             before=["/// Context: \"Add this method\" to `ScreenTimeModule` (not shown; its stand-in is in Stubs.swift).",
                     "extension ScreenTimeModule {"],
             after=["}"])],
         edits=[edit(184, "@objc", None, "platform", "Objective-C interop does not exist on Linux (`@objc` is an error there); "
                     "React Native's bridge needs it on iOS, the Screen Time calls do not")]),
    dict(seed="003", lines=(234, 260), file="Seed003_CheckForAppOpenedEvents", title="Step 7: Poll for Events in Main App",
         segments=[dict(lines=(234, 260),
             before=["/// Context: a method of `ScreenTimeModule` (not shown; its stand-in is in Stubs.swift).",
                     "extension ScreenTimeModule {"],
             after=["}"])],
         edits=[edit(234, "@objc", None, "platform", "Objective-C interop does not exist on Linux")]),
    # ---------------------------------------------------------------- seed 004
    dict(seed="004", lines=(33, 42), file="Seed004_SharedStorageAccess", title="1.2 Shared Storage Access",
         segments=[dict(lines=(33, 42),
             before=["/// Context: statements; `value` (written before the seed declares its own `value`) is not shown.",
                     "func seed004SharedStorageAccess(value: Int) {"],
             after=["_ = value", "}"])]),
    dict(seed="004", lines=(98, 109), file="Seed004_ClarityToShield", title="3.1 Main App → Shield Extension",
         segments=[
             dict(lines=(98, 102),
                  before=["/// Context: the main app's statements; `clarityScore` is not shown in the seed.",
                          "func seed004WriteClarity(clarityScore: Int) {"],
                  after=["}"]),
             dict(lines=(103, 109),
                  before=["/// Context: the shield-configuration extension's principal class (not shown in the seed).",
                          "class Seed004ClarityShield: ShieldConfigurationDataSource {"],
                  after=["}"]),
         ],
         edits=[edit(109, "}", "    return ShieldConfiguration()\n}", "seed bug",
                     "the method is declared to return a `ShieldConfiguration` and returns nothing (the seed stops at "
                     "\"Use clarity to determine shield appearance\"); the system's default configuration is returned")]),
    dict(seed="004", lines=(116, 127), file="Seed004_ShieldAction", title="3.2 Shield Extension → Main App",
         segments=[dict(lines=(116, 127),
             before=["/// Context: the shield-action extension's principal class (not shown in the seed).",
                     "class Seed004ShieldActionExtension: ShieldActionDelegate {"],
             after=["}"])],
         edits=[edit(123,
                     "    appGroup?.set(application.bundleIdentifier, forKey: \"blocked_app\")",
                     "    appGroup?.set(Application(token: application).bundleIdentifier, forKey: \"blocked_app\")",
                     "seed bug", "`ApplicationToken` has no `bundleIdentifier`; `Application(token:)` is Apple's way to ask, and its "
                     "`bundleIdentifier` is nil outside a shield-configuration extension (Apple's docs), so `blocked_app` is "
                     "never the bundle id the key table promises")]),
    dict(seed="004", lines=(154, 177), file="Seed004_UnlockWindow", title="3.3 Main App → Shield Extension (Unlock)",
         segments=[
             dict(lines=(154, 158), before=["/// Context: the main app's statements.", "func seed004WriteUnlock() {"], after=["}"]),
             dict(lines=(160, 177),
                  before=["/// Context: the shield-configuration extension's principal class (not shown in the seed);",
                          "/// `lockedConfiguration()` is the app's helper, in Stubs.swift.",
                          "class Seed004UnlockShield: ShieldConfigurationDataSource {"],
                  after=["}"]),
         ],
         edits=[
             edit(170, "            title: ShieldConfiguration.Label(text: \"Access Granted\"),",
                  "            title: ShieldConfiguration.Label(text: \"Access Granted\", color: .white),",
                  "seed bug", "Apple's only `ShieldConfiguration.Label` initialiser is `init(text:color:)`: the color is required"),
             edit(171, "            subtitle: ShieldConfiguration.Label(text: \"\\(remaining)s remaining\")",
                  "            subtitle: ShieldConfiguration.Label(text: \"\\(remaining)s remaining\", color: .white)",
                  "seed bug", "the same: `init(text:color:)` needs a color"),
         ]),
    dict(seed="004", lines=(186, 244), file="Seed004_AppGroupStorageModule", title="4.1 Native Module Interface (AppGroupStorage)",
         edits=[edit(187, "import Foundation", None, "platform", FOUNDATION_WHY),
                edit(188, "import React", "import SeedReact", "platform", REACT_WHY),
                edit(190, "@objc(AppGroupStorage)", None, "platform", "Objective-C interop does not exist on Linux")]
         + [edit(n, "    @objc", None, "platform", "Objective-C interop does not exist on Linux") for n in (198, 204, 212, 218, 226, 232, 240)]),
    dict(seed="004", lines=(335, 362), file="Seed004_ScreenTimeManager", title="5.1 FamilyControls Authorization",
         edits=[edit(340, "@objc(ScreenTimeManager)", None, "platform", "Objective-C interop does not exist on Linux")]
         + [edit(n, "    @objc", None, "platform", "Objective-C interop does not exist on Linux") for n in (343, 356)]),
    dict(seed="004", lines=(367, 424), file="Seed004_AppSelection", title="5.2 App Selection Interface",
         edits=[
             edit(369, "import SwiftUI", "import SeedSwiftUI", "platform", SWIFTUI_WHY),
             edit(371, "@objc(AppSelectionManager)", None, "platform", "Objective-C interop does not exist on Linux"),
             edit(376, "    @objc", None, "platform", "Objective-C interop does not exist on Linux"),
             edit(396, "        let bundleIds = tokens.compactMap { $0.bundleIdentifier }",
                  "        let bundleIds = tokens.compactMap { Application(token: $0).bundleIdentifier }", "seed bug",
                  "`ApplicationToken` has no `bundleIdentifier`; through `Application(token:)` it compiles and is nil in the "
                  "app (Apple's docs), so `monitored_apps` is always `[]` — the seed's plan to mirror bundle ids cannot work on iOS"),
             edit(417, "                if let apps = selection.applicationTokens {",
                  "                if case let apps = selection.applicationTokens {", "seed bug",
                  "`applicationTokens` is a non-optional `Set<ApplicationToken>`; `if let` needs an optional. "
                  "`if case let` binds it unconditionally, keeping the seed's shape"),
         ]),
    dict(seed="004", lines=(429, 477), file="Seed004_MonitorExtension", title="5.3 DeviceActivityMonitor Implementation"),
    dict(seed="004", lines=(490, 502), file="Seed004_ExtensionHeartbeat", title="6.1 Extension Crash Recovery (heartbeat)",
         segments=[dict(lines=(490, 502),
             before=["/// Context: the seed shows the extension's and the main app's statements together; one function body.",
                     "func seed004Heartbeat() {"],
             after=["}"])]),
    dict(seed="004", lines=(531, 550), file="Seed004_TimestampPrecedence", title="6.3 Race Conditions (timestamp-based precedence)",
         segments=[dict(lines=(531, 550),
             before=["/// Context: statements with a `return value`; `defaults` and `clarityScore` are not shown.",
                     "func seed004StampedClarity(defaults: UserDefaults?, clarityScore: Int) -> Int? {"],
             after=["return nil", "}"])]),
    dict(seed="004", lines=(610, 619), file="Seed004_StorageSize", title="7.3 Memory Limits (storage size)",
         segments=[dict(lines=(610, 619),
             before=["/// Context: statements; `sizeOfDirectory(at:)` and `cleanupOldData()` are the app's helpers (Stubs.swift).",
                     "func seed004CheckStorageSize() {"],
             after=["}"])]),
    dict(seed="004", lines=(637, 656), file="Seed004_DebugLogging", title="8.2 Debug Logging",
         edits=[
             edit(655, "let logs = await AppGroupStorage.getString('debug_logs');", None, "not Swift",
                  "TypeScript (single-quoted strings, `;`) inside the swift fence: the main app's React Native side"),
             edit(656, "console.log('Extension logs:', logs);", None, "not Swift", "TypeScript, as above"),
         ]),
]

PREAMBLE_NOTE = "// Preamble (not seed text): the imports the app's Xcode targets provide to every file of the module."


def seed_lines(seed):
    path = glob.glob(os.path.join(SEEDS, f"{seed}_*.txt"))[0]
    with open(path, encoding="utf-8") as f:
        return os.path.basename(path), f.read().split("\n")


def render(block):
    name, lines = seed_lines(block["seed"])
    edits = {e["line"]: e for e in block.get("edits", [])}
    segments = block.get("segments") or [dict(lines=block["lines"], before=[], after=[])]
    lo, hi = block["lines"]
    out = [f"// Seed {block['seed']} ({name}), lines {lo}-{hi}: {block['title']}.",
           "// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md",
           "// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).", ""]
    for seg in segments:
        a, b = seg["lines"]
        out += seg["before"]
        out.append(f"// ---- BEGIN seed {block['seed']} lines {a}-{b} ----")
        for n in range(a, b + 1):
            text = lines[n - 1]
            e = edits.get(n)
            if e is None:
                out.append(text)
                continue
            assert text == e["before"], f"seed {block['seed']} line {n}: {text!r} != {e['before']!r}"
            if e["after"] is None:
                out.append(f"// EDIT: removed seed line {n} ({e['kind']}): {text.strip()}")
            else:
                for new in e["after"].split("\n"):
                    out.append(new if new == text else new + f" // EDIT line {n} ({e['kind']})")
        out.append(f"// ---- END seed {block['seed']} lines {a}-{b} ----")
        out += seg["after"]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def edit_lines(e):
    """Seed lines an edit changes: 1 for a removal, else the lines of `after` that differ from `before`."""
    return 1 if e["after"] is None else sum(1 for l in e["after"].split("\n") if l != e["before"])


NOTES = """## Notes

* **Imports the blocks do not write.** Seed 000's `startNativeSession` names `FamilyActivitySelection` while importing
  only DeviceActivity and ManagedSettings; seed 004's 5.1 uses `RCTPromiseResolveBlock` without importing React; seed
  003's monitor calls CoreFoundation's Darwin notify center (on iOS Foundation re-exports CoreFoundation). The
  module-wide preambles provide these, as the apps' other files and bridging headers do.
* **`UserDefaults`** is `SharedDefaults` (the App Group store of PROTOCOL.md §3) in seeds 000, 003 and 004, whose
  blocks open App Group suites with `UserDefaults(suiteName:)`. Seed 002 keeps Foundation's (its `store` comes from
  code it does not show, and it falls back to `UserDefaults.standard`); its shield extension's `store`, which the
  Pushin pack runs, is the App Group suite, so that context function takes a `SharedDefaults`.
* **Apple APIs that are not Foundation on Linux**: `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`
  is provided by the AppGroup module (Sources/Core/AppGroup/FileManager+AppGroup.swift), CoreFoundation's Darwin notify
  center by `CFDarwinNotify` (Sources/EmulatedIOS/Frameworks).
* **Compiles, fails at run time (left as written, for the harness to show):** seed 000's `presentAppPicker` archives
  the selection with `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding: true)`. A
  FamilyActivitySelection is a struct, not NSSecureCoding: on iOS this throws and `try?` gives nil, so the selection
  is never saved and `startNativeSession` always answers "No blocked apps selected". On Linux, Foundation's
  NSKeyedArchiver stops the process instead (`Fatal error: Secure coding required`) — a divergence from iOS to keep in
  mind before running that function in a stand-in.
* **Run, not only compiled: seed 003.** The Until pack's as-written stand-ins run `UntilDeviceActivityMonitor` and
  `ScreenTimeModule` through `Seed003/UntilEntryPoints.swift` (not seed text: a public door to the seed's internal
  classes); `Seed003/Stubs.swift`'s module keeps what it sends to the JS side (`sendEvent`) for the stand-in to hand on.
* **Run, not only compiled: seed 000.** The FocusPledge pack's as-written stand-ins run `DeviceActivityMonitorExtension`,
  `ShieldActionExtension` (and through them `AppGroupStorage.markSessionFailed`), `getAuthorizationStatus` and
  `requestAuthorization` through `Seed000/FocusPledgeEntryPoints.swift` (not seed text: a public door to the seed's
  internal classes and functions; it waits, bounded, for the `result` the seed's `Task` sends).
* **Time.** The seeds read `Date()`. In a stand-in that runs seed code it is the device clock of PROTOCOL.md §2:
  `AppRunner` and `FrameworkExtension.run` install StandInKit's `DeviceTime`, which interposes
  `clock_gettime(CLOCK_REALTIME)` (Sources/Runtime/CDeviceTime). In the compile tests it is the host's clock.
* **Edits that remain as the seeds' authors meant**: `Application(token:).bundleIdentifier` compiles but is nil in
  app code (tokens are opaque), so seed 000's `failure_app_bundle_id`, and seed 004's `blocked_app` and
  `monitored_apps`, never hold bundle ids on iOS or here.
"""


def edits_md():
    rows = []
    total = {}
    by_kind = {}
    md = ["# Seed code: what was compiled, and every edit",
          "",
          "Generated by `Sources/Systems/SeedCode/extract.py` from `docs/seeds/` (do not edit by hand; change the script).",
          "An **edit** is one seed line changed, removed or added. **Context** (a function or class around statements",
          "or methods the seed shows without their surroundings) is written outside the BEGIN/END markers and changes",
          "no seed line; it is listed per block. Each seed module has a `Preamble.swift` (module-wide `@_exported`",
          "imports; no module aliases `UserDefaults`: the Screen Time modules' is the App Group's, EMULATED-IOS.md §7.11)",
          "and a `Stubs.swift` (app helpers the seed uses but does not",
          "show). Shared stand-ins for UIKit's app lifecycle, Flutter, SwiftUI and React Native are the modules in",
          "`Sources/Systems/SeedCode/Stubs/`. The seed modules compile in Swift 5 language mode, as the seeds' Xcode projects do.",
          "",
          "Kinds: **seed bug** — the line does not compile against Apple's SDK either; **platform** — an Apple-only",
          "language feature (`@objc`: Linux has no Objective-C runtime), or an `import Foundation` that Linux's",
          "Foundation makes ambiguous beside `UserDefaults`; **not Swift** — another language inside a swift fence.", ""]
    for b in BLOCKS:
        s = b["seed"]
        total.setdefault(s, 0)
        total[s] += sum(edit_lines(e) for e in b.get("edits", []))
        for e in b.get("edits", []):
            by_kind[e["kind"]] = by_kind.get(e["kind"], 0) + edit_lines(e)
    grand = sum(total.values())
    md += ["## Totals", "", "| seed | blocks | compiled | excluded | edits |", "|---|---|---|---|---|"]
    for s in sorted(total):
        bs = [b for b in BLOCKS if b["seed"] == s]
        md.append(f"| {s} | {len(bs)} | {sum(1 for b in bs if b['file'])} | {sum(1 for b in bs if not b['file'])} | {total[s]} |")
    md.append(f"| **all** | {len(BLOCKS)} | {sum(1 for b in BLOCKS if b['file'])} | {sum(1 for b in BLOCKS if not b['file'])} | **{grand}** |")
    md += ["", "By kind: " + ", ".join(f"{k} {v}" for k, v in sorted(by_kind.items())) + ".", "",
           "Seed 001 has no Swift code blocks.", ""]
    for s in sorted(total):
        md += [f"## Seed {s}", ""]
        for b in [b for b in BLOCKS if b["seed"] == s]:
            lo, hi = b["lines"]
            if not b["file"]:
                md += [f"### Lines {lo}–{hi}: {b['title']} — not compiled", "", f"Excluded: {b['excluded']}.", ""]
                continue
            md += [f"### Lines {lo}–{hi}: {b['title']} → `Seed{s}/{b['file']}.swift`", ""]
            segs = b.get("segments")
            if segs:
                md.append("Context: " + "; ".join(
                    f"lines {g['lines'][0]}–{g['lines'][1]} inside `{[l for l in g['before'] if l and not l.startswith(('///', 'import '))][0]}`"
                    + (f", followed by `{'; '.join(x for x in g['after'] if x != '}')}`" if any(x != '}' for x in g['after']) else "")
                    for g in segs) + ".")
                md.append("")
            es = b.get("edits", [])
            if not es:
                md += ["Edits: none.", ""]
                continue
            md += ["| line | before | after | kind | why |", "|---|---|---|---|---|"]
            for e in es:
                after = "(removed)" if e["after"] is None else e["after"].replace("\n", " ⏎ ")
                md.append(f"| {e['line']} | `{e['before'].strip()}` | `{after.strip()}` | {e['kind']} | {e['why']} |")
            md.append("")
    return "\n".join(md).rstrip("\n") + "\n\n" + NOTES


def main():
    check = "--check" in sys.argv
    want = {}
    for b in BLOCKS:
        if b["file"]:
            want[os.path.join(HERE, f"Seed{b['seed']}", b["file"] + ".swift")] = render(b)
    want[os.path.join(HERE, "EDITS.md")] = edits_md()
    bad = []
    for path, text in want.items():
        if check:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() != text:
                        bad.append(path)
            except FileNotFoundError:
                bad.append(path)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    if bad:
        print("out of date (run Sources/Systems/SeedCode/extract.py):\n  " + "\n  ".join(bad))
        sys.exit(1)


if __name__ == "__main__":
    main()
