// swift-tools-version:6.0
import PackageDescription

// Data flows one way: identity -> resolver -> container -> coordinator -> atomic file.
// Below AppGroupContainer: the system layer (AppGroupSystem, every system call) and the
// property-list codec (PropertyLists). SharedDefaults, ShareInbox (the share flow's
// queue) and SharedKeychain sit on top and never reach the system layer: CI refuses
// the line that tries (.ci/layering, and SwiftPM's explicit import check in .ci/run).
// ARCHITECTURE.md has the map.
let package = Package(
    name: "AppGroupContainer",
    // Linux needs no entry. On macOS (expected to build, not tested here; see
    // the Platforms article) the code needs Swift concurrency and URL APIs of macOS 13.
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "AppGroupContainer", targets: ["AppGroupContainer"]),
        .library(name: "AppGroupFoundation", targets: ["AppGroupFoundation"]),
        .library(name: "SharedDefaults", targets: ["SharedDefaults"]),
        .library(name: "ShareInbox", targets: ["ShareInbox"]),
        .library(name: "SharedKeychain", targets: ["SharedKeychain"]),
        .library(name: "AppGroupSimulation", targets: ["AppGroupSimulation"]),
        .library(name: "AppGroupTesting", targets: ["AppGroupTesting"]),
        .library(name: "WidgetReloads", targets: ["WidgetReloads"]),
        .library(name: "NotificationDelivery", targets: ["NotificationDelivery"]),
        .executable(name: "ShareFlowDemo", targets: ["ShareFlowDemo"]),
        .executable(name: "appgroup", targets: ["appgroup"]),
    ],
    targets: [
        // The OFD lock commands are hidden behind _GNU_SOURCE in Glibc's headers;
        // this C target is the only place that names them.
        .target(name: "CAppGroupSys"),
        // The package's binary and XML property-list codec, with the old-style (OpenStep)
        // text and plutil's text output the appgroup tool uses; Foundation only. Its API
        // is `package`, not public (PropertyListCodec.swift says why). ENABLE_MOCKING: the
        // key index's colliding-hash hook (KeyIndex.swift), in debug builds only.
        .target(name: "PropertyLists",
                swiftSettings: [.define("ENABLE_MOCKING", .when(configuration: .debug))]),
        // The system layer: every system call, the fault and trace seam (ENABLE_MOCKING:
        // FaultInjection.swift, in debug builds only; release builds compile the
        // bare calls), the contained walk and the lock primitive. The stores above
        // AppGroupContainer never import it: they reach the file system through
        // AppGroupContainer's package primitives.
        .target(name: "AppGroupSystem", dependencies: ["CAppGroupSys"],
                swiftSettings: [.define("ENABLE_MOCKING", .when(configuration: .debug))]),
        // Coordination/README.md: the design note on the coordinator's fast paths and held locks;
        // Signals/README.md: the design note of the one cross-process signal.
        .target(name: "AppGroupContainer", dependencies: ["AppGroupSystem", "PropertyLists"], exclude: ["Coordination/README.md", "Signals/README.md"],
                swiftSettings: [.define("ENABLE_MOCKING", .when(configuration: .debug))]),
        // Foundation's and Core Foundation's names that Linux lacks (NSFileCoordinator,
        // NSFilePresenter, NSExtensionContext, NSItemProvider, CFString, the Darwin notify
        // center...), Apple's names only, built on AppGroupContainer's package API. On
        // Apple's platforms `import Foundation` gives them. The lifecycle's listener and
        // the process checks come from the system layer; no bare system call (.ci/layering).
        // CoreFoundationNames/README.md: why Core Foundation's names are declared here.
        .target(name: "AppGroupFoundation", dependencies: ["AppGroupContainer", "AppGroupSystem", "PropertyLists"],
                exclude: ["CoreFoundationNames/README.md"]),
        .target(name: "SharedDefaults", dependencies: ["AppGroupContainer", "AppGroupFoundation", "PropertyLists"]),
        .target(name: "ShareInbox", dependencies: ["AppGroupContainer", "AppGroupFoundation"]),
        .target(name: "SharedKeychain", dependencies: ["AppGroupContainer", "AppGroupFoundation", "PropertyLists"]),
        // For other projects' integration tests: a temporary simulated device,
        // targets with identities, and running code or executables as a target.
        // AppGroupSimulation holds the devices, targets and processes, and ExtensionMain (a
        // share extension's entry point); AppGroupTesting re-exports it and adds the Swift
        // Testing trait and XCTest support, so that ShareFlowDemo and a share extension's
        // executable (ordinary executables) link no test framework.
        .target(name: "AppGroupSimulation", dependencies: ["AppGroupContainer", "AppGroupFoundation", "AppGroupSystem", "PropertyLists", "SharedKeychain", "WidgetReloads",
                                                    "NotificationDelivery"]),
        // WidgetKit's reload side (WidgetCenter, TimelineProvider...) and the widget
        // host entry point; `import WidgetKit` re-exports its Apple names on Linux.
        .target(name: "WidgetReloads", dependencies: ["AppGroupContainer"]),
        // UserNotifications' names (UNUserNotificationCenter, UNNotificationServiceExtension...)
        // and the device's notification records; `import UserNotifications` re-exports
        // its Apple names on Linux.
        .target(name: "NotificationDelivery", dependencies: ["AppGroupContainer"]),
        .target(name: "AppGroupTesting", dependencies: ["AppGroupContainer", "AppGroupFoundation", "AppGroupSimulation", "AppGroupSystem"]),
        .executableTarget(name: "ShareFlowDemo", dependencies: ["AppGroupContainer", "AppGroupFoundation", "ShareInbox", "SharedDefaults", "SharedKeychain", "AppGroupSimulation"]),
        // appgroup: look into and edit emulated containers, like `defaults` and `simctl`.
        .executableTarget(name: "appgroup", dependencies: ["AppGroupContainer", "ShareInbox", "SharedDefaults", "SharedKeychain", "PropertyLists"]),

        // Helper processes for the multi-process tests: each does one thing to real
        // files with real locks on command, so tests race real processes.
        .target(name: "ProbeSupport", path: "Tests/Probes/ProbeSupport"),
        .executableTarget(name: "AppGroupProbe", dependencies: ["AppGroupContainer", "AppGroupFoundation", "ProbeSupport"], path: "Tests/Probes/AppGroupProbe"),
        .executableTarget(name: "DefaultsProbe", dependencies: ["AppGroupContainer", "SharedDefaults", "ProbeSupport"], path: "Tests/Probes/DefaultsProbe"),
        .executableTarget(name: "KeychainProbe", dependencies: ["AppGroupContainer", "SharedKeychain", "ProbeSupport"], path: "Tests/Probes/KeychainProbe"),
        // Identity-scope scenarios in a process of their own, where no other test's scope is live.
        .executableTarget(name: "ScopeProbe", dependencies: ["AppGroupContainer", "SharedDefaults", "SharedKeychain", "ProbeSupport"], path: "Tests/Probes/ScopeProbe"),
        // A target's process for the sandbox tests: reads, writes and reports what Foundation answers.
        .target(name: "CSandboxProbe", path: "Tests/Probes/CSandboxProbe"),
        .executableTarget(name: "SandboxProbe", dependencies: ["AppGroupContainer", "AppGroupSimulation", "CSandboxProbe"], path: "Tests/Probes/SandboxProbe"),
        // Posts and observes signals for the signal tests, and runs the two public shapes
        // (a Darwin notification wrapper, a capture store) as an app and an extension.
        .executableTarget(name: "SignalProbe", dependencies: ["AppGroupContainer", "AppGroupFoundation", "ProbeSupport"], path: "Tests/Probes/SignalProbe"),
        // A target for the lifecycle tests: observes the lifecycle's notifications, holds
        // coordinated writes and raw locks, runs background activities, allocates memory.
        .executableTarget(name: "LifecycleProbe", dependencies: ["AppGroupContainer", "AppGroupFoundation", "SharedDefaults", "ShareInbox", "ProbeSupport"], path: "Tests/Probes/LifecycleProbe"),
        // A share extension written as iOS code writes one, for the share-sheet tests (SimulatedDevice.share).
        .executableTarget(name: "ShareExtensionProbe", dependencies: ["AppGroupFoundation", "AppGroupSimulation"], path: "Tests/Probes/ShareExtensionProbe"),
        // Writers for the reliability tests: killed mid-write, held locks, soak workers.
        .executableTarget(name: "ReliabilityProbe", dependencies: ["AppGroupContainer", "AppGroupSystem", "ShareInbox", "SharedDefaults", "SharedKeychain", "ProbeSupport"], path: "Tests/Probes/ReliabilityProbe"),
        // swift run -c release Benchmarks: the emulator against Foundation and the bare floor.
        .executableTarget(name: "Benchmarks", dependencies: ["AppGroupContainer", "AppGroupFoundation", "ShareInbox", "SharedDefaults", "CAppGroupSys", "PropertyLists", "AppGroupSimulation", "AppGroupSystem", "SharedKeychain"], path: "Benchmarks"),

        // The tests, by subject: one target per module tested, named <Module>Tests, each
        // holding all of that module's tests, the hostile, killed-process and soak ones
        // included; Swift Testing tags say which kind a test is (TestSupport's Tags.swift;
        // CONTRIBUTING.md says how to run one kind). Their shared helpers and fixtures:
        // TestSupport (Foundation and Swift Testing only: tags, load, seeds, fuzz inputs,
        // temporary directories, threads, python3), and DeviceTestSupport (simulated
        // devices and the probes, on AppGroupTesting). Neither is a product.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .target(name: "DeviceTestSupport", dependencies: ["TestSupport", "AppGroupTesting", "AppGroupContainer", "AppGroupFoundation", "AppGroupSystem"],
                path: "Tests/DeviceTestSupport"),
        // The codec's own tests: round trips against Foundation and Python's plistlib,
        // hostile inputs, nesting limits, seeded fuzzing, the old-style and plutil text.
        // PropertyLists and TestSupport only, not the device stack (DedicatedThreads.swift says why).
        .testTarget(name: "PropertyListsTests", dependencies: ["PropertyLists", "TestSupport"]),
        // The system layer: process states, untimed stats, the trace's merge.
        .testTarget(name: "AppGroupSystemTests", dependencies: ["AppGroupSystem", "TestSupport"]),
        // Apple's names: NSFileCoordinator and NSFilePresenter (in one process and across
        // processes), NSItemProvider, the Core Foundation names, the Darwin notify center and notify(3).
        .testTarget(name: "AppGroupFoundationTests", dependencies: ["AppGroupTesting", "AppGroupContainer", "AppGroupFoundation", "AppGroupProbe",
                                                                    "SignalProbe", "TestSupport", "DeviceTestSupport"]),
        // Containers, identity, coordination, the signal table.
        .testTarget(name: "AppGroupContainerTests", dependencies: ["AppGroupTesting", "AppGroupContainer", "AppGroupFoundation", "AppGroupProbe", "AppGroupSystem", "SignalProbe",
                                                                   "ReliabilityProbe", "TestSupport", "DeviceTestSupport"]),
        // Tests that cross every store at once: in EveryStore/ crash, soak, faults, hostile
        // input, links and modes (the guarantees AppGroupContainer's Reliability article
        // states), in SystemCallSeam/ every store's calls through the system layer's seam.
        .testTarget(name: "IntegrationTests", dependencies: ["AppGroupTesting", "AppGroupContainer", "AppGroupSystem", "SharedDefaults", "ShareInbox",
                                                             "SharedKeychain", "ReliabilityProbe", "TestSupport", "DeviceTestSupport"]),
        .testTarget(name: "SharedDefaultsTests", dependencies: ["AppGroupTesting", "AppGroupContainer", "SharedDefaults", "DefaultsProbe",
                                                                "ReliabilityProbe", "PropertyLists", "AppGroupSystem", "TestSupport", "DeviceTestSupport"]),
        .testTarget(name: "SharedKeychainTests", dependencies: ["AppGroupTesting", "SharedKeychain", "SharedDefaults", "KeychainProbe", "ScopeProbe",
                                                                "ProbeSupport", "PropertyLists", "TestSupport"]),
        // The queue and its journal; the cross-process findings run the built ShareFlowDemo.
        .testTarget(name: "ShareInboxTests", dependencies: ["AppGroupTesting", "AppGroupContainer", "ShareInbox", "AppGroupSystem",
                                                            "ReliabilityProbe", "ShareFlowDemo", "TestSupport", "DeviceTestSupport"]),
        // AppGroupTesting and the AppGroupSimulation it re-exports: devices, targets, launched
        // processes, the traits and XCTest support, and (Sandbox/) data containers, bundles,
        // build settings and the kernel-enforced sandbox.
        .testTarget(name: "AppGroupTestingTests", dependencies: ["AppGroupTesting", "AppGroupContainer", "ShareInbox", "SharedDefaults", "SandboxProbe", "CSandboxProbe", "LifecycleProbe", "AppGroupProbe", "ShareExtensionProbe", "SignalProbe",
                                                                 "ShareFlowDemo", "TestSupport", "DeviceTestSupport"]),
        // The ShareFlowDemo executable: its roles, the share flow with real processes, its command line.
        .testTarget(name: "ShareFlowDemoTests", dependencies: ["AppGroupTesting", "AppGroupContainer", "ShareInbox", "ShareFlowDemo",
                                                               "TestSupport", "DeviceTestSupport"]),
        // The appgroup tool, run as a built binary.
        .testTarget(name: "AppGroupCLITests", dependencies: ["appgroup", "AppGroupContainer", "ShareInbox", "SharedDefaults", "SharedKeychain",
                                                             "AppGroupTesting", "DefaultsProbe", "KeychainProbe", "ShareFlowDemo", "PropertyLists",
                                                             "TestSupport", "DeviceTestSupport"]),
        // Runs the built Benchmarks binary with tiny counts: it keeps compiling and running (no timings checked).
        .testTarget(name: "BenchmarksSmokeTests", dependencies: ["AppGroupTesting", "Benchmarks", "TestSupport"]),
        // The product modules as a user imports them, compiled with MemberImportVisibility:
        // every extension member must be reachable with its own module's import.
        .testTarget(name: "ImportVisibilityTests", dependencies: ["AppGroupContainer", "AppGroupFoundation", "AppGroupSimulation", "SharedDefaults", "SharedKeychain", "ShareInbox", "AppGroupTesting"],
                    swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]),
    ],
    swiftLanguageModes: [.v6]
)

// On Linux, where Apple's frameworks do not exist, modules named Security and
// LocalAuthentication re-export SharedKeychain, and `notify` declares notify(3)'s
// names, so that iOS code compiles with its import lines unchanged. The manifest is
// compiled for the host, so on Apple's platforms these targets do not exist and
// `import Security` finds Apple's.
#if os(Linux)
package.products += [
    .library(name: "Security", targets: ["Security"]),
    .library(name: "LocalAuthentication", targets: ["LocalAuthentication"]),
    .library(name: "WidgetKit", targets: ["WidgetKit"]),
    .library(name: "UserNotifications", targets: ["UserNotifications"]),
    .library(name: "notify", targets: ["notify"]),
    .library(name: "UniformTypeIdentifiers", targets: ["UniformTypeIdentifiers"]),
]
package.targets += [
    .target(name: "Security", dependencies: ["SharedKeychain", "AppGroupFoundation", "AppGroupContainer"]),
    .target(name: "LocalAuthentication", dependencies: ["SharedKeychain", "AppGroupContainer"]),
    .target(name: "WidgetKit", dependencies: ["WidgetReloads"]),
    .target(name: "UserNotifications", dependencies: ["NotificationDelivery"]),
    // notify(3) (notify_post, notify_register_dispatch...) on the device's signal table.
    .target(name: "notify", dependencies: ["AppGroupContainer"]),
    // UTType and NSItemProvider's forms taking one, on AppGroupFoundation's type table.
    .target(name: "UniformTypeIdentifiers", dependencies: ["AppGroupFoundation"]),
    // A notes app and its widget, for WidgetKitTests (launched as device targets).
    .executableTarget(name: "WidgetProbe", dependencies: ["WidgetKit", "WidgetReloads", "AppGroupContainer", "AppGroupFoundation"], path: "Tests/Probes/WidgetProbe"),
    // App-extension code in Swift 5 language mode, as most shipping apps are: the entry points work in both modes.
    .executableTarget(name: "Swift5ModeProbe", dependencies: ["AppGroupFoundation", "AppGroupSimulation", "SharedDefaults", "UniformTypeIdentifiers", "Security",
                                                              "WidgetKit", "WidgetReloads"],
                      path: "Tests/Probes/Swift5ModeProbe", swiftSettings: [.swiftLanguageMode(.v5)]),
    // An app's (or an extension's) calls of its notification center, written as iOS code is, for UserNotificationsTests.
    .executableTarget(name: "NotificationProbe", dependencies: ["UserNotifications"],
                      path: "Tests/Probes/NotificationProbe"),
    // A notification service extension as iOS code writes one; its main.swift is ExtensionMain.run's one line.
    .executableTarget(name: "NotificationServiceProbe", dependencies: ["UserNotifications", "AppGroupSimulation"],
                      path: "Tests/Probes/NotificationServiceProbe"),
    // UserNotifications: the center in a process and on a device, across real sandboxed processes.
    .testTarget(name: "UserNotificationsTests", dependencies: ["UserNotifications", "NotificationDelivery", "AppGroupTesting", "DeviceTestSupport",
                                                               "TestSupport", "NotificationProbe", "NotificationServiceProbe"]),
    .testTarget(name: "WidgetKitTests", dependencies: ["WidgetKit", "WidgetReloads", "AppGroupTesting", "DeviceTestSupport", "TestSupport", "WidgetProbe", "SignalProbe"]),
]
package.targets += [
    // An app's own module with types named like the package's API, and a test that
    // imports it beside Security, LocalAuthentication, WidgetKit, AppGroupFoundation and
    // notify: those expose Apple's names only.
    .target(name: "SecurityNamesFixture", path: "Tests/SecurityNamesFixture"),
    .testTarget(name: "SecurityNamesTests", dependencies: ["Security", "LocalAuthentication", "WidgetKit", "AppGroupFoundation", "notify", "SecurityNamesFixture"]),
]
package.targets.first(where: { $0.name == "IntegrationTests" })?.dependencies += ["Swift5ModeProbe"]
// Code that ports iOS keychain code imports Apple's names as iOS code does.
for name in ["SharedKeychainTests", "KeychainProbe"] {
    package.targets.first(where: { $0.name == name })?.dependencies += ["Security", "LocalAuthentication"]
}
for name in ["ScopeProbe", "ReliabilityProbe", "AppGroupCLITests", "ImportVisibilityTests"] {
    package.targets.first(where: { $0.name == name })?.dependencies += ["Security"]
}
package.targets += [
    // UTType: the type tree, tags, dynamic and app-declared types, NSItemProvider's UTType forms.
    .testTarget(name: "UniformTypeIdentifiersTests", dependencies: ["UniformTypeIdentifiers", "AppGroupFoundation"]),
]
package.targets.first(where: { $0.name == "ShareExtensionProbe" })?.dependencies += ["UniformTypeIdentifiers"]
for name in ["SignalProbe", "AppGroupFoundationTests", "ImportVisibilityTests"] {
    package.targets.first(where: { $0.name == name })?.dependencies += ["notify"]
}
#endif
