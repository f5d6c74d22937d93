// swift-tools-version:6.0
import PackageDescription

// Data flows one way: identity -> resolver -> container -> coordinator -> atomic file.
// SharedDefaults, ShareInbox (the share flow's queue) and SharedKeychain sit on top:
// they cannot reach the system-call layer (it is internal to AppGroupContainer) and
// use the `package` primitives AppGroupContainer offers them instead.
let package = Package(
    name: "AppGroupContainer",
    // Linux needs no entry. On macOS (expected to build, not tested here; see
    // the Platforms article) the code needs Swift concurrency and URL APIs of macOS 13.
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "AppGroupContainer", targets: ["AppGroupContainer"]),
        .library(name: "SharedDefaults", targets: ["SharedDefaults"]),
        .library(name: "ShareInbox", targets: ["ShareInbox"]),
        .library(name: "SharedKeychain", targets: ["SharedKeychain"]),
        .library(name: "AppGroupTesting", targets: ["AppGroupTesting"]),
        .executable(name: "ShareFlowDemo", targets: ["ShareFlowDemo"]),
        .executable(name: "appgroup", targets: ["appgroup"]),
    ],
    targets: [
        // The OFD lock commands are hidden behind _GNU_SOURCE in Glibc's headers;
        // this C target is the only place that names them.
        .target(name: "CAppGroupSys"),
        // Coordination/README.md: the design note on the coordinator's fast paths and held locks.
        // ENABLE_MOCKING: the fault and trace hooks of the system-call seam
        // (System/FaultInjection.swift), in debug builds only; release builds
        // compile the bare calls.
        .target(name: "AppGroupContainer", dependencies: ["CAppGroupSys"], exclude: ["Coordination/README.md"],
                swiftSettings: [.define("ENABLE_MOCKING", .when(configuration: .debug))]),
        .target(name: "SharedDefaults", dependencies: ["AppGroupContainer"]),
        .target(name: "ShareInbox", dependencies: ["AppGroupContainer"]),
        .target(name: "SharedKeychain", dependencies: ["AppGroupContainer"]),
        // For other projects' integration tests: a temporary simulated device,
        // targets with identities, and running code or executables as a target.
        // AppGroupSimulation holds the devices, targets and processes; AppGroupTesting
        // re-exports it and adds the Swift Testing trait and XCTest support, so that
        // ShareFlowDemo (an ordinary executable) links no test framework.
        .target(name: "AppGroupSimulation", dependencies: ["AppGroupContainer"]),
        .target(name: "AppGroupTesting", dependencies: ["AppGroupSimulation"]),
        .executableTarget(name: "ShareFlowDemo", dependencies: ["AppGroupContainer", "ShareInbox", "SharedDefaults", "SharedKeychain", "AppGroupSimulation"]),
        // appgroup: look into and edit emulated containers, like `defaults` and `simctl`.
        .executableTarget(name: "appgroup", dependencies: ["AppGroupContainer", "ShareInbox", "SharedDefaults", "SharedKeychain"]),

        // Helper processes for the multi-process tests: each does one thing to real
        // files with real locks on command, so tests race real processes.
        .target(name: "ProbeSupport"),
        .executableTarget(name: "AppGroupProbe", dependencies: ["AppGroupContainer", "ProbeSupport"]),
        .executableTarget(name: "DefaultsProbe", dependencies: ["AppGroupContainer", "SharedDefaults", "ProbeSupport"]),
        .executableTarget(name: "KeychainProbe", dependencies: ["AppGroupContainer", "SharedKeychain", "ProbeSupport"]),
        // Identity-scope scenarios in a process of their own, where no other test's scope is live.
        .executableTarget(name: "ScopeProbe", dependencies: ["AppGroupContainer", "SharedDefaults", "SharedKeychain", "ProbeSupport"]),
        // Writers for the reliability tests: killed mid-write, held locks, soak workers.
        .executableTarget(name: "ReliabilityProbe", dependencies: ["AppGroupContainer", "ShareInbox", "SharedDefaults", "SharedKeychain", "ProbeSupport"]),
        // swift run -c release Benchmarks: the emulator against Foundation and the bare floor.
        .executableTarget(name: "Benchmarks", dependencies: ["AppGroupContainer", "ShareInbox", "SharedDefaults", "CAppGroupSys"]),

        .testTarget(name: "AppGroupContainerTests", dependencies: ["AppGroupTesting", "AppGroupContainer", "AppGroupProbe"]),
        .testTarget(name: "SharedDefaultsTests", dependencies: ["AppGroupTesting", "SharedDefaults", "DefaultsProbe"]),
        .testTarget(name: "SharedKeychainTests", dependencies: ["AppGroupTesting", "SharedKeychain", "SharedDefaults", "KeychainProbe", "ScopeProbe"]),
        .testTarget(name: "ShareInboxTests", dependencies: ["AppGroupTesting", "AppGroupContainer", "ShareInbox"]),
        .testTarget(name: "ShareFlowTests", dependencies: ["AppGroupContainer", "ShareInbox", "AppGroupTesting", "ShareFlowDemo"]),
        .testTarget(name: "AppGroupCLITests", dependencies: ["appgroup", "AppGroupContainer", "ShareInbox", "SharedDefaults", "SharedKeychain", "AppGroupTesting", "DefaultsProbe", "KeychainProbe", "ShareFlowDemo"]),
        // Runs the built Benchmarks binary with tiny counts: it keeps compiling and running (no timings checked).
        .testTarget(name: "BenchmarksSmokeTests", dependencies: ["AppGroupTesting", "Benchmarks"]),
        // The product modules as a user imports them, compiled with MemberImportVisibility:
        // every extension member must be reachable with its own module's import.
        .testTarget(name: "ImportVisibilityTests", dependencies: ["AppGroupContainer", "SharedDefaults", "SharedKeychain", "ShareInbox", "AppGroupTesting"],
                    swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]),
        .testTarget(name: "ReliabilityTests", dependencies: ["AppGroupTesting", "AppGroupContainer", "ShareInbox", "SharedDefaults", "SharedKeychain", "ReliabilityProbe"]),
    ],
    swiftLanguageModes: [.v6]
)

// On Linux, where Apple's frameworks do not exist, modules named Security and
// LocalAuthentication re-export SharedKeychain, so that iOS keychain code compiles
// with its import lines unchanged. The manifest is compiled for the host, so on
// Apple's platforms these targets do not exist and `import Security` finds Apple's.
#if os(Linux)
package.products += [
    .library(name: "Security", targets: ["Security"]),
    .library(name: "LocalAuthentication", targets: ["LocalAuthentication"]),
]
package.targets += [
    .target(name: "Security", dependencies: ["SharedKeychain"]),
    .target(name: "LocalAuthentication", dependencies: ["SharedKeychain"]),
]
for name in ["SharedKeychainTests", "KeychainProbe"] {
    package.targets.first(where: { $0.name == name })?.dependencies += ["Security", "LocalAuthentication"]
}
#endif
