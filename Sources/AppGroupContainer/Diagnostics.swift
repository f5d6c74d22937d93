import Foundation

/// Where the package says what Apple's APIs keep quiet about (a nil container, a
/// suite refused). Standard error by default; `APP_GROUP_QUIET=1` silences it.
public enum Diagnostics {
    /// Writes one line to standard error, prefixed with the process name. Messages
    /// start with the API that speaks (`containerURL(...)`, `SharedDefaults(...)`,
    /// `SharedKeychain ...`, `share inbox ...`).
    public static func warn(_ message: String) {
        if ProcessInfo.processInfo.environment["APP_GROUP_QUIET"] == "1" { return }
        let line = "[\(ProcessInfo.processInfo.processName)] \(message)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
