// swift-tools-version:6.0
import PackageDescription

// Data flows one way: identity -> resolver -> container -> coordinator -> atomic file.
// SharedDefaults, the share-flow inbox and SharedKeychain sit on top and never call
// fcntl or rename themselves.
let package = Package(
    name: "AppGroupContainer",
    products: [
        .library(name: "AppGroupContainer", targets: ["AppGroupContainer"]),
        .library(name: "SharedDefaults", targets: ["SharedDefaults"]),
        .library(name: "SharedKeychain", targets: ["SharedKeychain"]),
        .library(name: "AppGroupTesting", targets: ["AppGroupTesting"]),
        .executable(name: "ShareFlowDemo", targets: ["ShareFlowDemo"]),
        .executable(name: "appgroup", targets: ["appgroup"]),
    ],
    targets: [
        // The OFD lock commands are hidden behind _GNU_SOURCE in Glibc's headers;
        // this C target is the only place that names them.
        .target(name: "CAppGroupSys"),
        // ENABLE_MOCKING: the fault and trace hooks of the system-call seam
        // (System/FaultInjection.swift), in debug builds only; release builds
        // compile the bare calls.
        .target(name: "AppGroupContainer", dependencies: ["CAppGroupSys"],
                swiftSettings: [.define("ENABLE_MOCKING", .when(configuration: .debug))]),
        .target(name: "SharedDefaults", dependencies: ["AppGroupContainer"]),
        .target(name: "SharedKeychain", dependencies: ["AppGroupContainer"]),
        // For other projects' integration tests: a temporary simulated device,
        // targets with identities, and running code or executables as a target.
        .target(name: "AppGroupTesting", dependencies: ["AppGroupContainer"]),
        .executableTarget(name: "ShareFlowDemo", dependencies: ["AppGroupContainer", "SharedDefaults", "SharedKeychain", "AppGroupTesting"]),
        // appgroup: look into and edit emulated containers, like `defaults` and `simctl`.
        .executableTarget(name: "appgroup", dependencies: ["AppGroupContainer", "SharedDefaults"]),

        // Helper processes for the multi-process tests: each does one thing to real
        // files with real locks on command, so tests race real processes.
        .target(name: "ProbeSupport"),
        .executableTarget(name: "AppGroupProbe", dependencies: ["AppGroupContainer", "ProbeSupport"]),
        .executableTarget(name: "DefaultsProbe", dependencies: ["AppGroupContainer", "SharedDefaults", "ProbeSupport"]),
        .executableTarget(name: "KeychainProbe", dependencies: ["AppGroupContainer", "SharedKeychain", "ProbeSupport"]),
        // Writers for the reliability tests: killed mid-write, held locks, soak workers.
        .executableTarget(name: "ReliabilityProbe", dependencies: ["AppGroupContainer", "SharedDefaults", "SharedKeychain", "ProbeSupport"]),
        // swift run -c release Benchmarks: the emulator against Foundation and the bare floor.
        .executableTarget(name: "Benchmarks", dependencies: ["AppGroupContainer", "SharedDefaults", "CAppGroupSys"]),

        .testTarget(name: "AppGroupContainerTests", dependencies: ["AppGroupTesting", "AppGroupContainer", "AppGroupProbe"]),
        .testTarget(name: "SharedDefaultsTests", dependencies: ["AppGroupTesting", "SharedDefaults", "DefaultsProbe"]),
        .testTarget(name: "SharedKeychainTests", dependencies: ["AppGroupTesting", "SharedKeychain", "KeychainProbe"]),
        .testTarget(name: "ShareFlowTests", dependencies: ["AppGroupContainer", "AppGroupTesting", "ShareFlowDemo"]),
        .testTarget(name: "AppGroupCLITests", dependencies: ["appgroup", "AppGroupContainer", "SharedDefaults", "AppGroupTesting", "DefaultsProbe", "ShareFlowDemo"]),
        // Runs the built Benchmarks binary with tiny counts: it keeps compiling and running (no timings checked).
        .testTarget(name: "BenchmarksSmokeTests", dependencies: ["AppGroupTesting", "Benchmarks"]),
        .testTarget(name: "ReliabilityTests", dependencies: ["AppGroupTesting", "AppGroupContainer", "SharedDefaults", "SharedKeychain", "ReliabilityProbe"]),
    ],
    swiftLanguageModes: [.v6]
)
