import AppGroupTesting
import Foundation

/// The Notes targets as the tests run them, each identity read from the
/// target's own `.entitlements` file, as Xcode signs it. Each target's host
/// executable has the target's name (`NotesApp`, `NotesShareExtension`,
/// `NotesWidget`): the tests start it with `device.spawn(built:)`,
/// `device.launch(built:)` or `device.run(built:)`.
struct NotesTargets {
    static let teamIdentifier = "A1B2C3D4E5"

    /// These tests run on Linux. On a Mac the code under test calls Apple's own
    /// Foundation and Security, which know nothing of the simulated device: they
    /// would reach the real group containers and keychain.
    #if os(Linux)
    static let canRun = true
    #else
    static let canRun = false
    #endif
    static let whyNot = "Linux only: on macOS, Apple's frameworks answer the code under test, not the simulated device"
    /// The example package's folder (this file is Tests/NotesTests/NotesTargets.swift).
    static let packageDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    let app: SimulatedTarget
    let shareExtension: SimulatedTarget
    let widget: SimulatedTarget
    /// The share extension as it is when its target never joined the group.
    let shareExtensionWithoutGroup: SimulatedTarget

    init() throws {
        app = try Self.target("NotesApp", .app, "Sources/NotesApp/NotesApp.entitlements", "ai.systenics.notes")
        shareExtension = try Self.target("NotesShareExtension", .shareExtension,
                                         "Sources/NotesShareExtension/NotesShareExtension.entitlements", "ai.systenics.notes.share")
        widget = try Self.target("NotesWidget", .widget, "Sources/NotesWidget/NotesWidget.entitlements", "ai.systenics.notes.widget")
        shareExtensionWithoutGroup = try Self.target("NotesShareExtensionWithoutGroup", .shareExtension,
                                                     "Tests/NotesTests/Fixtures/NotesShareExtensionWithoutGroup.entitlements",
                                                     "ai.systenics.notes.share")
    }

    /// The build settings the targets' files use, from the project's .xcconfig.
    static func buildSettings() throws -> BuildSettings {
        try BuildSettings(contentsOf: packageDirectory.appendingPathComponent("Config/Notes.xcconfig"))
    }

    /// A target as Xcode builds it: its .entitlements file and its Info.plist (the
    /// host's, `Sources/<name>/Info.plist`; the fixture without a group shares the
    /// share extension's), both expanded with the project's build settings.
    private static func target(_ name: String, _ kind: SimulatedTarget.Kind, _ file: String, _ bundleIdentifier: String) throws -> SimulatedTarget {
        let host = name.hasSuffix("WithoutGroup") ? String(name.dropLast("WithoutGroup".count)) : name
        return try SimulatedTarget(name: name, kind: kind, entitlementsFile: packageDirectory.appendingPathComponent(file),
                                   infoPlist: .file(packageDirectory.appendingPathComponent("Sources/\(host)/Info.plist")),
                                   teamIdentifier: teamIdentifier, bundleIdentifier: bundleIdentifier, buildSettings: try buildSettings())
    }
}
