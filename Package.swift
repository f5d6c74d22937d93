// swift-tools-version:6.0
import PackageDescription

// Data flows one way: identity -> resolver -> container -> coordinator -> atomic file.
// SharedDefaults and the share-flow inbox sit on top and never call fcntl or rename.
let package = Package(
    name: "AppGroupContainer",
    products: [
        .library(name: "AppGroupContainer", targets: ["AppGroupContainer"]),
        .library(name: "SharedDefaults", targets: ["SharedDefaults"]),
        .executable(name: "ShareFlowDemo", targets: ["ShareFlowDemo"]),
    ],
    targets: [
        // The OFD lock commands are hidden behind _GNU_SOURCE in Glibc's headers;
        // this C target is the only place that names them.
        .target(name: "CAppGroupSys"),
        .target(name: "AppGroupContainer", dependencies: ["CAppGroupSys"]),
        .target(name: "SharedDefaults", dependencies: ["AppGroupContainer"]),
        .executableTarget(name: "ShareFlowDemo", dependencies: ["AppGroupContainer", "SharedDefaults"]),
        // A helper process for the multi-process tests: it locks, increments and
        // replaces files on command, so tests race real processes.
        .executableTarget(name: "AppGroupProbe", dependencies: ["AppGroupContainer"]),
        .testTarget(name: "AppGroupContainerTests", dependencies: ["AppGroupContainer", "AppGroupProbe"]),
    ],
    swiftLanguageModes: [.v6]
)
