// swift-tools-version:6.0
import PackageDescription
// snippet.hide
// The shared code of an iOS app with a share extension and a widget, tested on
// Linux with AppGroupContainer: the setup README.md's "Add it to your package"
// shows (.ci/docs checks that README's manifest declares these targets with these
// dependencies and conditions). The TestingYourOwnTargets article walks through it.
// snippet.show

let package = Package(
    name: "Notes",
    platforms: [.macOS(.v13)],
    dependencies: [
        // Until the package is hosted, a checkout's path. `name:` fixes the identity that
        // `package:` names below (a path's identity is otherwise its folder's name).
        .package(name: "AppGroupContainer", path: "../.."),
    ],
    targets: [
        // The App Group code every target shares, written against Apple's API. On Apple's
        // platforms Apple's Foundation answers it, so the package is needed on Linux only.
        .target(name: "NotesShared", dependencies: [
            .product(name: "AppGroupFoundation", package: "AppGroupContainer", condition: .when(platforms: [.linux])),
            .product(name: "SharedDefaults", package: "AppGroupContainer", condition: .when(platforms: [.linux])),
        ]),
        // One host executable per target, which the tests run as that target; its folder
        // keeps the target's .entitlements and Info.plist (Config/Notes.xcconfig expands them).
        .executableTarget(name: "NotesApp", dependencies: ["NotesShared"], exclude: ["NotesApp.entitlements", "Info.plist"]),
        .executableTarget(name: "NotesShareExtension", dependencies: [
            "NotesShared",
            // ExtensionMain on Linux, with NSExtensionContext and NSItemProvider (Foundation's on Apple's platforms).
            .product(name: "AppGroupSimulation", package: "AppGroupContainer", condition: .when(platforms: [.linux])),
        ], exclude: ["NotesShareExtension.entitlements", "Info.plist"]),
        .executableTarget(name: "NotesWidget", dependencies: ["NotesShared"], exclude: ["NotesWidget.entitlements", "Info.plist"]),
        // The tests run the hosts, never import them: depending on them makes every build
        // of the tests (`swift test`, `swift build --build-tests`) build them too.
        .testTarget(name: "NotesTests", dependencies: [
            "NotesShared", "NotesApp", "NotesShareExtension", "NotesWidget",
            .product(name: "AppGroupTesting", package: "AppGroupContainer"),
        ], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)

// `import Security`, `LocalAuthentication` and `WidgetKit` are Apple's frameworks on Apple's
// platforms and the package's modules on Linux, whose manifest declares these products
// on Linux only: ask for them under the same condition (WidgetReloads: the widget's host).
#if os(Linux)
package.targets.first { $0.name == "NotesShared" }?.dependencies += ["Security", "LocalAuthentication", "WidgetKit", "WidgetReloads"].map {
    Target.Dependency.product(name: $0, package: "AppGroupContainer")
}
#endif
