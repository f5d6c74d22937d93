import Foundation
import AppGroupSystem

/// Where the package says what Apple's APIs keep quiet about (a nil container, a
/// suite refused, an inbox item set aside). Every such line goes through
/// ``handler``, which a host can replace; the library writes to standard error
/// only through the default handler.
public enum Diagnostics {
    /// A receiver of the package's diagnostic lines. Lines start with the API that
    /// speaks (`containerURL(...)`, `SharedDefaults(...)`, `SharedKeychain ...`,
    /// `share inbox ...`) and carry no trailing newline.
    public typealias Handler = @Sendable (String) -> Void

    /// Receives every diagnostic line, from any thread; set it to route them to
    /// your logger, or to nil to drop them. By default the standard-error handler.
    /// Reading and setting it are safe from any thread.
    public static var handler: Handler? {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// The default handler: one line to standard error, prefixed with the process
    /// name; nothing when the environment has `APP_GROUP_QUIET=1`.
    package static let standardError: Handler = { message in
        if ProcessInfo.processInfo.environment["APP_GROUP_QUIET"] == "1" { return }
        let line = "[\(ProcessInfo.processInfo.processName)] \(message)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    private static let current = Locked<Handler?>(standardError)

    /// Hands `message` to the current handler (called outside the lock, so a
    /// handler may itself read or replace ``handler``).
    package static func warn(_ message: String) {
        handler?(message)
    }
}
