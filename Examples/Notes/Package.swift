// swift-tools-version:6.0
import PackageDescription

// The shared code of an iOS app with a share extension and a widget, tested on
// Linux with AppGroupContainer. Copy this folder and rename: see
// Sources/AppGroupTesting/AppGroupTesting.docc/TestingYourOwnTargets.md in the
// AppGroupContainer package for the walk-through.
let package = Package(
    name: "Notes",
    platforms: [.macOS(.v13)],
    dependencies: [
        // Your own package uses the released one instead:
        //     .package(url: "<the AppGroupContainer repository>", from: "0.1.0")
        // or, until it is hosted, the path of your checkout, keeping `name:`:
        //     .package(name: "AppGroupContainer", path: "/path/to/AppGroupContainer")
        // `name:` pins the identity that `package:` refers to below; a path
        // dependency's identity is otherwise its folder name, which changes with
        // where the repository is cloned.
        .package(name: "AppGroupContainer", path: "../.."),
    ],
    targets: [
        // The App Group logic every target shares, written against Apple's API.
        .target(name: "NotesShared", dependencies: [
            // On Apple's platforms Foundation and Security answer themselves: the
            // package's stand-ins are needed (and imported) on Linux only.
            .product(name: "AppGroupContainer", package: "AppGroupContainer", condition: .when(platforms: [.linux])),
            .product(name: "SharedDefaults", package: "AppGroupContainer", condition: .when(platforms: [.linux])),
        ]),
        // One host executable per target of the app: tests start them as that target.
        // Each folder keeps the target's `.entitlements` and Info.plist files, as Xcode
        // does; both use the build settings of Config/Notes.xcconfig.
        .executableTarget(name: "NotesApp", dependencies: ["NotesShared"], exclude: ["NotesApp.entitlements", "Info.plist"]),
        .executableTarget(name: "NotesShareExtension", dependencies: [
            "NotesShared",
            // ExtensionMain, NSExtensionContext and NSItemProvider on Linux (Foundation's on Apple's platforms).
            .product(name: "AppGroupContainer", package: "AppGroupContainer", condition: .when(platforms: [.linux])),
        ], exclude: ["NotesShareExtension.entitlements", "Info.plist"]),
        .executableTarget(name: "NotesWidget", dependencies: ["NotesShared"], exclude: ["NotesWidget.entitlements", "Info.plist"]),
        // Swift Testing and XCTest tests, with real processes. Depending on the
        // host executables makes `swift build --build-tests` build them beside the
        // test bundle, where SimulatedDevice.builtExecutable(named:) finds them.
        .testTarget(name: "NotesTests", dependencies: [
            "NotesShared", "NotesApp", "NotesShareExtension", "NotesWidget",
            .product(name: "AppGroupTesting", package: "AppGroupContainer"),
        ], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)

// On Linux, `import Security` (and `import LocalAuthentication`, if your code
// uses LAContext: add it the same way) is the package's module of that name.
// The manifest is compiled for the host, so on macOS these products are not
// asked for and Apple's frameworks are imported instead.
#if os(Linux)
package.targets.first(where: { $0.name == "NotesShared" })?.dependencies += [
    .product(name: "Security", package: "AppGroupContainer"),
]
#endif
