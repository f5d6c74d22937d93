import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// App-extension code compiled in Swift 5 language mode (Swift5ModeProbe), as
/// most shipping apps are, runs as a share extension, a widget and an app of one
/// device with the same import lines and entry points as Swift 6 code.
@Suite(.tags(.multiprocess))
struct Swift5ModeTests {
    static let group = "group.com.example.notes"

    @Test func aSwift5ShareExtensionWidgetAndAppWorkTogether() async throws {
        try await SimulatedDevice.with { device in
            let app = try SimulatedTarget(name: "Notes", kind: .app, teamIdentifier: "ABCDE12345",
                                          bundleIdentifier: "com.example.notes", applicationGroups: [Self.group])
            let share = try SimulatedTarget(name: "NotesShare", kind: .shareExtension, teamIdentifier: "ABCDE12345",
                                            bundleIdentifier: "com.example.notes.share", applicationGroups: [Self.group])
            let widget = try SimulatedTarget(name: "Swift5Widget", kind: .widget, teamIdentifier: "ABCDE12345",
                                             bundleIdentifier: "com.example.notes.widget", applicationGroups: [Self.group])
            try device.installWidget(kind: "Swift5Widget", family: .systemSmall,
                                     executable: SimulatedDevice.requireBuiltExecutable(named: "Swift5ModeProbe"), as: widget)

            let saved = try await device.run(built: "Swift5ModeProbe", ["app", "hello"], as: app)
            try saved.requireSuccess()
            #expect(saved.outputLines == ["app saved 1 keychain 0"], "\(saved)")
            try await device.processWidgetReloads()
            #expect(try device.widgetTimelines(ofKind: "Swift5Widget").flatMap(\.entries).map(\.description) == ["note: hello"])

            for count in 1...2 {
                let item = NSExtensionItem()
                item.attachments = [NSItemProvider(item: URL(string: "https://example.com/\(count)")! as NSURL, typeIdentifier: "public.url")]
                let outcome = try await device.share([item], to: share, built: "Swift5ModeProbe", arguments: ["share"])
                #expect(outcome.process.outputLines == ["saved \(count)"], "the URL reaches the suite through `item as? URL`: \(outcome.process)")
                guard case .completed = outcome.ending else {
                    Issue.record("not completed: \(outcome)")
                    return
                }
            }
        }
    }
}

/// A file that names `UserDefaults` without `import class SharedDefaults.UserDefaults`
/// compiles on Linux and saves a group's suite with Foundation's own class, where
/// no other target reads it: the device says so in the outcome.
@Suite(.tags(.multiprocess))
struct ForgottenUserDefaultsImportTests {
    @Test func aGroupSuiteSavedWithFoundationsClassIsReported() async throws {
        try await SimulatedDevice.with { device in
            let app = try SimulatedTarget(name: "Notes", kind: .app, teamIdentifier: "ABCDE12345",
                                          bundleIdentifier: "com.example.notes", applicationGroups: [Swift5ModeTests.group])
            let outcome = try await device.run(built: "Swift5ModeProbe", ["forgot-import", "lost"], as: app)
            try outcome.requireSuccess()
            #expect(outcome.description.contains("Notes saved the suite group.com.example.notes with Foundation's own UserDefaults"),
                    "\(outcome)")
            #expect(outcome.description.contains("import class SharedDefaults.UserDefaults"), "\(outcome)")

            let fixed = try await device.run(built: "Swift5ModeProbe", ["app", "kept"], as: try SimulatedTarget(
                name: "Other", kind: .app, teamIdentifier: "ABCDE12345", bundleIdentifier: "com.example.other",
                applicationGroups: [Swift5ModeTests.group]))
            try fixed.requireSuccess()
            #expect(!fixed.description.contains("Foundation's own UserDefaults"), "the package's class writes the group's container: \(fixed)")
        }
    }
}
