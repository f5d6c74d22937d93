import AppGroupContainer
import AppGroupSystem
import Foundation

/// How a target is launched.
public enum SandboxMode: Sendable, Hashable {
    /// Inside its sandbox, enforced by the kernel (Landlock): the default. Where
    /// the kernel cannot enforce it, the target runs unenforced and the device
    /// says so once (see ``KernelSandbox``).
    case enforced
    /// Without a sandbox, for debugging: the target still gets its home, its data
    /// container and its bundle, but may reach any file its user may.
    case unenforced
}

/// Whether this machine's kernel can enforce a simulated target's sandbox:
/// Linux's Landlock (in the kernel since 5.13), probed once per process.
///
/// Where it cannot (an older kernel, Landlock left out of the kernel's LSM list,
/// a container that filters the system calls), targets run unenforced, and the
/// first launch writes one line to standard error:
///
///     AppGroupTesting: the sandbox is not enforced: Landlock is unavailable (...).
///     Simulated targets run without it: ...
///
/// A test that must not pass unenforced requires it: the Swift Testing trait
/// `.requiresSandbox(_:)` or, in XCTest, `requireSandbox(_:)` (AppGroupTesting),
/// which skip or fail the test, as you choose.
public enum KernelSandbox {
    /// Whether the kernel enforces sandboxes here.
    public enum Availability: Sendable, Hashable, CustomStringConvertible {
        /// Landlock works, at ABI version `abi`.
        case available(abi: Int)
        /// It does not; `reason` says why, in words.
        case unavailable(reason: String)

        public var description: String {
            switch self {
            case .available(let abi): "enforced by Landlock (ABI \(abi))"
            case .unavailable(let reason): "not enforced: \(reason)"
            }
        }
    }

    /// The environment variable that plays a kernel without Landlock when set to
    /// `unavailable` (how the fallback is tested): read once, at the first probe.
    public static let probeEnvironmentKey = "APPGROUP_SANDBOX_PROBE"

    /// The environment variable that launches every target unenforced when set to
    /// `off` (explicitly, for debugging a whole run); `on` or unset: enforced.
    public static let modeEnvironmentKey = "APPGROUP_SANDBOX"

    /// Whether launches here are enforced: the kernel's answer, probed once, or
    /// unavailable when `APPGROUP_SANDBOX=off` turns the sandbox off for the run,
    /// so that what is reported is what the device does.
    public static var availability: Availability {
        if let availabilityOverride { return availabilityOverride }
        if modeSetting == "off" { return .unavailable(reason: turnedOffReason) }
        return probed.availability
    }

    /// Why launches are unenforced when the run turns the sandbox off.
    static let turnedOffReason = "it is turned off for this run (\(modeEnvironmentKey)=off)"

    /// `APPGROUP_SANDBOX`, or the value a test put in its place for its task.
    static var modeSetting: String? { modeOverride ?? ProcessInfo.processInfo.environment[modeEnvironmentKey] }

    /// A value of `APPGROUP_SANDBOX` for this task and the tasks it starts: how the
    /// package's tests check a run with the sandbox turned off without changing the
    /// test process's environment.
    @TaskLocal package static var modeOverride: String?

    /// An answer that replaces the kernel's in this task and the tasks it starts:
    /// how the package's tests check what the requirement traits do on a kernel
    /// without Landlock (the probe itself is tested in a process of its own).
    @TaskLocal package static var availabilityOverride: Availability?

    /// True when launches in ``SandboxMode/enforced`` are enforced here.
    public static var isAvailable: Bool {
        if case .available = availability { return true }
        return false
    }

    /// The message a launch writes once when it cannot enforce (nil when it can).
    public static var unenforcedMessage: String? {
        guard case .unavailable(let reason) = availability else { return nil }
        if reason == turnedOffReason {
            return "AppGroupTesting: the sandbox is not enforced: \(reason). Simulated targets run without it: "
                + "they can read and write outside their containers, which iOS refuses, so a test can pass here for code that fails on a device. "
                + "Unset \(modeEnvironmentKey) (or set it to on) to enforce it again."
        }
        return "AppGroupTesting: the sandbox is not enforced: \(reason). Simulated targets run without it: "
            + "they can read and write outside their containers, which iOS refuses, so a test can pass here for code that fails on a device. "
            + "Use Linux 5.13 or later with Landlock enabled (lsm=landlock,... on the kernel's command line), and "
            + "require it in tests that depend on it: @Test(.requiresSandbox(.fail)) or try requireSandbox(.fail) in XCTest."
    }

    private struct Probe: Sendable {
        let availability: Availability
    }

    private static let probed: Probe = {
        if ProcessInfo.processInfo.environment[probeEnvironmentKey] == "unavailable" {
            SandboxSystemCalls.forceLandlockUnavailable(Errno(rawValue: ENOSYS))
        }
        switch SandboxSystemCalls.landlockABI() {
        case .success(let abi):
            return Probe(availability: .available(abi: abi))
        case .failure(let code):
            let reason: String
            switch code.rawValue {
            case ENOSYS: reason = "Landlock is unavailable (landlock_create_ruleset: ENOSYS: the kernel predates 5.13, lacks CONFIG_SECURITY_LANDLOCK, or a seccomp filter refuses the call)"
            case EOPNOTSUPP: reason = "Landlock is built into the kernel but disabled at boot (landlock_create_ruleset: EOPNOTSUPP; add landlock to lsm= on the kernel's command line)"
            default: reason = "Landlock is unavailable (landlock_create_ruleset: \(code))"
            }
            return Probe(availability: .unavailable(reason: reason))
        }
    }()

    private static let said = Locked(false)

    /// Writes ``unenforcedMessage`` to standard error the first time only: straight
    /// there, not through `Diagnostics.handler`, as a kept device's path is (a test
    /// process may silence diagnostics, and this is what the user must see).
    static func sayUnenforcedOnce() {
        guard let message = unenforcedMessage else { return }
        let first = said.withLock { said -> Bool in
            defer { said = true }
            return !said
        }
        if first { FileHandle.standardError.write(Data((message + "\n").utf8)) }
    }

    /// Why a launch in ``SandboxMode/enforced`` would not be enforced here, in words
    /// (the kernel cannot, or `APPGROUP_SANDBOX=off` turns it off); nil when it would be.
    package static var whyLaunchesAreUnenforced: String? {
        if case .unavailable = availability { return "\(availability)" }
        return nil
    }

    /// The mode `requested` becomes under `APPGROUP_SANDBOX`.
    static func effectiveMode(_ requested: SandboxMode) -> SandboxMode {
        modeSetting == "off" ? .unenforced : requested
    }
}
