import Foundation

/// What a target knows of itself from its bundle, as the shipping apps read it:
/// the App Group from the Info.plist key `AppGroup` (whose value Xcode expands from
/// the `NOTES_APP_GROUP` build setting), and the bundle identifier.
public enum AppIdentity {
    /// The bundle identifier, nil outside an app's bundle (in a test process).
    public static var bundleIdentifier: String? { Bundle.main.bundleIdentifier }

    /// The Info.plist's `AppGroup`, nil outside an app's bundle: code that runs in a
    /// test process (`target.run(on:)`) uses ``NotesGroup/identifier`` instead.
    public static var appGroupFromInfoPlist: String? {
        Bundle.main.object(forInfoDictionaryKey: "AppGroup") as? String
    }

    /// The lines `about` prints: bundle, group and where Documents is.
    public static var lines: [String] {
        let documents = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask).first?.path ?? "none"
        return ["bundle \(bundleIdentifier ?? "none")", "group \(appGroupFromInfoPlist ?? "none")", "documents \(documents)"]
    }
}
