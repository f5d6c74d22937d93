import AppGroupContainer
import Foundation

/// Finds a group's suite that a target saved with Foundation's own `UserDefaults`
/// instead of the package's: a file that names `UserDefaults` without
/// `import class SharedDefaults.UserDefaults` compiles on Linux and gets
/// swift-corelibs-foundation's class, which keeps `UserDefaults(suiteName:
/// "group.…")` in the target's own `Library/Preferences` (its `XDG_CONFIG_HOME`),
/// where no other target reads it. On iOS that suite is the group's, so the port
/// loses the data without a word; here the device says so once, and every outcome
/// of the target's processes carries the note. SharedDefaults never writes a held
/// group's suite there (it writes the group's container), so a file there is
/// Foundation's.
struct FoundationSuiteCheck: Sendable, Hashable {
    /// The target's `Library/Preferences`.
    let preferences: URL
    /// The App Groups the target holds.
    let groups: [String]
    /// The target's name, for the message.
    let target: String

    /// The note for each held group whose suite Foundation's class wrote; empty when none.
    func findings() -> [String] {
        groups.compactMap { group -> String? in
            let path = preferences.appendingPathComponent(group + ".plist").path
            // lstat: a link planted there is reported as a file, never followed.
            guard (try? FileManager.default.attributesOfItem(atPath: path)) != nil else { return nil }
            let note = "\(target) saved the suite \(group) with Foundation's own UserDefaults, to \(path), which no other target reads "
                + "(on iOS it is the group's shared suite). Add `import class SharedDefaults.UserDefaults` (under `#if !canImport(Darwin)`) "
                + "to each file that names UserDefaults: SharedDefaults' article \"Porting UserDefaults code\"."
            Diagnostics.warnOnce(about: "foundation-suite " + path, note)
            return note
        }
    }
}
