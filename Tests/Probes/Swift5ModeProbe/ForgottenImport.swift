// The port's commonest slip: a file that names UserDefaults without the scoped
// import gets Foundation's own class, which keeps a group's suite in the target's
// own preferences. The device reports it (FoundationSuiteCheck).
#if !canImport(Darwin)
import Foundation

enum ForgottenImport {
    static func save(_ note: String) {
        let defaults = UserDefaults(suiteName: NotesApp.group)
        defaults?.set(note, forKey: "latest")
        // As much App Group code still does; without it Foundation's class on Linux
        // writes nothing at all before the process ends.
        defaults?.synchronize()
        print("saved without the import")
    }
}
#endif
