import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// Item 2: a spawned target's Bundle.main is the target's bundle.
@Suite(.tags(.multiprocess), .simulatedDevices) struct BundleTests {
    @Test(arguments: [
        (SimulatedTarget.Kind.app, "APPL", "nil"),
        (.shareExtension, "XPC!", "com.apple.share-services"),
        (.widget, "XPC!", "com.apple.widgetkit-extension"),
        (.notificationExtension, "XPC!", "com.apple.usernotifications.service"),
    ])
    func bundleMainAnswersAsTheTarget(kind: SimulatedTarget.Kind, packageType: String, extensionPoint: String) async throws {
        try await SimulatedDevice.with { device in
            let target = try SimulatedTarget(name: "Reader\(kind.rawValue.prefix(1).uppercased())", kind: kind, entitlements: try Entitlements(
                teamIdentifier: ReaderTargets.team, bundleIdentifier: "com.example.reader.\(kind.rawValue.lowercased())",
                applicationGroups: [ReaderTargets.group]), infoPlist: .dictionary(["AppGroup": "$(APP_GROUP_ID)"]),
                buildSettings: ["APP_GROUP_ID": ReaderTargets.group])
            let seen = values(try await device.run(built: "SandboxProbe", ["identity"], as: target).requireSuccess())
            #expect(seen["bundleIdentifier"] == target.bundleIdentifier)
            #expect(seen["CFBundlePackageType"] == packageType)
            #expect(seen["NSExtensionPointIdentifier"] == extensionPoint)
            #expect(seen["AppGroup"] == ReaderTargets.group)
            #expect(seen["CFBundleExecutable"] == target.name)
            #expect(seen["processName"] == target.name)
            #expect(seen["bundleURL"]?.hasSuffix("/\(target.name).\(kind == .app ? "app" : "appex")") == true, "\(seen)")
            #expect(seen["executableURL"] == seen["bundleURL"].map { $0 + "/" + target.name })
            #expect(target.infoDictionary["CFBundleIdentifier"] as? String == target.bundleIdentifier)
        }
    }

    /// An Info.plist file as a real project has it, with its build settings from an
    /// .xcconfig file that includes another.
    @Test func anInfoPlistFileWithBuildSettingsFromAnXCConfig() async throws {
        try await SimulatedDevice.with { device in
            let project = device.scratch.appendingPathComponent("Reader", isDirectory: true)
            try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
            try """
                // Shared by every target
                #include "Team.xcconfig"
                #include? "Local.xcconfig"
                APP_ID_IOS = com.example.$(PRODUCT_NAME:lower)
                APP_GROUP_ID = group.$(APP_ID_IOS)
                """.write(to: project.appendingPathComponent("Shared.xcconfig"), atomically: true, encoding: .utf8)
            try "DEVELOPMENT_TEAM = \(ReaderTargets.team)\n".write(to: project.appendingPathComponent("Team.xcconfig"), atomically: true, encoding: .utf8)
            try """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0">
                <dict>
                \t<key>CFBundleIdentifier</key>
                \t<string>$(PRODUCT_BUNDLE_IDENTIFIER)</string>
                \t<key>CFBundleExecutable</key>
                \t<string>$(EXECUTABLE_NAME)</string>
                \t<key>AppGroup</key>
                \t<string>${APP_GROUP_ID}</string>
                </dict>
                </plist>
                """.write(to: project.appendingPathComponent("Info.plist"), atomically: true, encoding: .utf8)
            try """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0">
                <dict>
                \t<key>com.apple.security.application-groups</key>
                \t<array>
                \t\t<string>group.$(APP_ID_IOS)</string>
                \t</array>
                </dict>
                </plist>
                """.write(to: project.appendingPathComponent("Reader.entitlements"), atomically: true, encoding: .utf8)
            let settings = try BuildSettings(contentsOf: project.appendingPathComponent("Shared.xcconfig"))
            let app = try SimulatedTarget(name: "Reader", kind: .app, entitlementsFile: project.appendingPathComponent("Reader.entitlements"),
                                          infoPlist: .file(project.appendingPathComponent("Info.plist")), teamIdentifier: ReaderTargets.team,
                                          bundleIdentifier: "com.example.reader", buildSettings: settings)
            #expect(app.entitlements.applicationGroups.map(\.rawValue) == ["group.com.example.reader"])
            let seen = values(try await device.run(built: "SandboxProbe", ["identity"], as: app).requireSuccess())
            #expect(seen["bundleIdentifier"] == "com.example.reader")
            #expect(seen["AppGroup"] == "group.com.example.reader")
            let wrote = try await device.run(built: "SandboxProbe", ["write-group", "group.com.example.reader", "x", "1"], as: app)
            #expect(wrote.outputLines.first?.hasPrefix("ok") == true, "\(wrote)")
        }
    }

    @Test func anInfoPlistThatNamesAnotherBundleIsRefused() throws {
        #expect(throws: SimulationError.self) {
            try SimulatedTarget(name: "Reader", kind: .app, entitlements: try Entitlements(teamIdentifier: ReaderTargets.team, bundleIdentifier: "com.example.reader"),
                                infoPlist: .dictionary(["CFBundleIdentifier": "com.example.other"]))
        }
        #expect(throws: SimulationError.self) {
            try SimulatedTarget(name: "Reader", kind: .app, entitlements: try Entitlements(teamIdentifier: ReaderTargets.team, bundleIdentifier: "com.example.reader"),
                                infoPlist: .dictionary(["CFBundleExecutable": "../escape"]))
        }
    }
}

@Suite(.simulatedDevices) struct LaunchErrorTests {
    @Test func aMissingExecutableIsATypedErrorNamingIt() throws {
        try SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let missing = device.scratch.appendingPathComponent("NoSuchHost")
            do {
                _ = try device.launch(missing, [], as: reader.app)
                Issue.record("a missing executable was launched")
            } catch SimulationError.container(let error) {
                #expect(error == .systemCall(operation: "execve", path: missing.path, errno: Errno(rawValue: ENOENT)), "\(error)")
            }
            #expect(!FileManager.default.fileExists(atPath: device.directory.appendingPathComponent("Bundles").path))
            #expect(!FileManager.default.fileExists(atPath: device.root.appendingPathComponent("Applications/com.example.reader").path),
                    "nothing is made for a launch that cannot start")
        }
    }
}
