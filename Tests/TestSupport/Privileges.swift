import Foundation

/// What the tests' user may do: the cases that act as another user (a directory
/// planted by uid 65534, a drain run as it) need root and `setpriv`, as CI has.
/// Tests that need them carry `.enabled(if:)` with these, so that a run without
/// them reports the tests as skipped, with the reason, instead of passing them.
public enum Privileges {
    /// True when the tests run as root (they may `chown` to another user).
    public static var isRoot: Bool { geteuid() == 0 }

    /// The `setpriv` executable, when there is one.
    public static var setpriv: String? {
        ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// True when a test may run commands as uid 65534: root, with `setpriv`.
    public static var canActAsAnotherUser: Bool { isRoot && setpriv != nil }
}
