// The samples of the TestingYourOwnTargets and TheSandbox articles that are not
// tests, compiled by `swift build` (the tests are Examples/Notes' own).

// The imports of a file of the shared code (NotesShared) that uses all three:
import Foundation
#if !canImport(Darwin)
import AppGroupFoundation                    // containerURL, NSFileCoordinator, NSFilePresenter
import class SharedDefaults.UserDefaults     // only in files that name UserDefaults
#endif
import Security                              // on Linux, the package's module of that name

// snippet.hide
import AppGroupTesting
let project = URL(fileURLWithPath: "/path/to/Reader")
// snippet.show
let settings = try BuildSettings(contentsOf: project.appendingPathComponent("Config/Shared.xcconfig"))
let share = try SimulatedTarget(name: "ReaderShare", kind: .shareExtension,
                                entitlementsFile: project.appendingPathComponent("ReaderShare/ReaderShare.entitlements"),
                                infoPlist: .file(project.appendingPathComponent("ReaderShare/Info.plist")),
                                teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "com.example.reader.share",
                                buildSettings: settings.adding(["APP_ID_IOS": "com.example.reader"]))
