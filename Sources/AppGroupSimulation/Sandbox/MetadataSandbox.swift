import AppGroupSystem
import Foundation

/// How a sandboxed target's changes to file metadata are refused outside what it
/// may write: Landlock restricts opening, writing, creating and removing files, but
/// has no right for `chmod`, `chown`, `utimensat` or `setxattr`, which iOS refuses
/// outside the app's containers. A seccomp filter installed with the Landlock
/// ruleset covers them (see <doc:TheSandbox>), probed once per process.
package enum MetadataSandbox {
    package typealias Guard = SandboxSystemCalls.MetadataGuard

    /// The environment variable that plays a kernel without seccomp user
    /// notification (`refused`) or without seccomp filters (`none`): read once.
    static let probeEnvironmentKey = "APPGROUP_SANDBOX_METADATA_PROBE"

    /// The guard launches use: the kernel's best, or the one a test chose.
    package static var current: Guard { override ?? probed }

    /// A guard that replaces the kernel's in this task and the tasks it starts:
    /// how the package's tests run a target under the fallback on a kernel that
    /// has user notification.
    @TaskLocal package static var override: Guard?

    private static let probed: Guard = {
        switch ProcessInfo.processInfo.environment[probeEnvironmentKey] {
        case "refused": return .refused
        case "none": return .none
        default: return SandboxSystemCalls.availableMetadataGuard()
        }
    }()

    /// What a launch under `mode` leaves to the target, in words (nil: nothing).
    static func weakness(of mode: Guard) -> String? {
        switch mode {
        case .supervised: nil
        case .refused:
            "the kernel lacks seccomp user notification (Linux 5.6 or later has it, with pidfd_getfd and openat2), so a sandboxed target's chmod, chown, "
                + "utimes and setxattr by path are refused everywhere, its own files included, while the same calls on an open "
                + "descriptor are not checked (a file it may only read, such as its bundle, can be changed that way)"
        case .none:
            "the kernel has no seccomp filters, so a sandboxed target may change the mode, owner, times and extended attributes "
                + "of any file it can name, other targets' included, which iOS refuses"
        }
    }

    private static let said = Locked(false)

    /// Writes what `mode` leaves open to standard error, the first time only.
    static func sayOnce(_ mode: Guard) {
        guard let weakness = weakness(of: mode) else { return }
        let first = said.withLock { said -> Bool in
            defer { said = true }
            return !said
        }
        if first { FileHandle.standardError.write(Data("AppGroupTesting: file metadata is not fully sandboxed: \(weakness).\n".utf8)) }
    }
}
