import Foundation
import AppGroupSystem

/// Every error the AppGroupContainer module throws.
///
/// Each case carries what went wrong, where, and (in ``description``) what to do
/// about it. Apple's APIs often answer such mistakes with a quiet `nil`; this
/// package says why.
public enum AppGroupError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// A string is not a valid App Group identifier; `rule` names the rule it broke.
    case invalidGroupIdentifier(String, rule: GroupIdentifier.Rule)
    /// The simulated process has no entitlement for the group it asked for.
    case notEntitled(group: String, bundleIdentifier: String, heldGroups: [String])
    /// An entitlements source (a file, the environment or code) is malformed.
    /// `source` is a file path or `environment`; `key` is the offending key.
    case invalidEntitlements(source: String, key: String, problem: String)
    /// No identity was given and none was found in the environment.
    case missingIdentity(hint: String)
    /// The container root cannot be used.
    case invalidRoot(path: String, problem: String)
    /// A path given by a caller, or found on disk, is unsafe: a symbolic link, a
    /// path that leaves the container, a name with a separator or NUL.
    case unsafePath(path: String, problem: String)
    /// A directory of the container belongs to another user (`owner`, with `mode`)
    /// than the process's (`user`): that user could replace the files in it, so it
    /// is not used. See ``ContainerResolver``.
    case untrustedDirectory(path: String, owner: UInt32, mode: UInt32, user: UInt32)
    /// A file that should be a regular file is something else (a directory, a FIFO...).
    case notARegularFile(path: String, kind: String)
    /// A file is larger than the reader accepts. `size` is its size, or `limit + 1`
    /// when the reader stopped at the limit (a pipe, or a file growing as it was read).
    case fileTooLarge(path: String, size: Int64, limit: Int64)
    /// A system call failed. `operation` is the C function, `errno` its error.
    case systemCall(operation: String, path: String, errno: Errno)
    /// A change is in place and visible to every process, but the fsync that makes
    /// it survive a power loss failed (`operation` on `path`, with `errno`). The
    /// change must not be repeated: it happened.
    case notDurable(path: String, operation: String, errno: Errno)
    /// A coordinated access waited longer than its timeout for another holder.
    case coordinationTimedOut(path: String, lockFile: String, seconds: Double)
    /// A presenter of `path` (or of a directory above it) in another process of
    /// the device did not answer `message` (`savePresentedItemChanges`,
    /// `relinquishPresentedItem(toWriter:)`...) within `seconds`: `presenter` names
    /// its process (pid, name, target) and the URL it presents.
    case presenterDidNotAnswer(path: String, message: String, presenter: String, seconds: Double)
    /// A thread already holding a read lock on an item asked to write it.
    case nestedCoordinationUpgrade(path: String)
    /// The lock file of the previous locking protocol (version 1, package 0.1.x)
    /// stands beside the item at `path`: a process of that version coordinates it,
    /// or did, and would not exclude this release (<doc:LockingProtocol>).
    case olderLockingProtocol(path: String, lockFile: String)
    /// Code asked who is calling where the answer could be another scope's target:
    /// the conflict names the scopes, where the code ran and what to do instead
    /// (see `IdentityScope`).
    case identityScopeConflict(IdentityScopeConflict)
    /// A device's state record (`DeviceStateStore`) at `path` is not one this
    /// package writes: `problem` says what is wrong. Nothing was changed.
    case invalidDeviceState(path: String, problem: String)
    /// A change of a device's state was refused: `operation` (`lock`, `unlock`...)
    /// is not one iOS makes in `state`, or the caller is a target, which cannot
    /// change its device's state. Nothing was changed.
    case deviceStateChangeRefused(operation: String, state: String, problem: String)

    public var description: String {
        switch self {
        case let .invalidGroupIdentifier(id, rule):
            return "invalid App Group identifier \(Self.quote(id)): \(rule.explanation). "
                + "Use the iOS form group.<reverse-DNS> (group.com.example.notes) or the macOS Team-ID form (A1B2C3D4E5.com.example.notes)."
        case let .notEntitled(group, bundle, held):
            let holds = held.isEmpty ? "no application groups at all" : "only " + held.joined(separator: ", ")
            return "\(bundle) is not entitled to the App Group \(group): its com.apple.security.application-groups entitlement holds \(holds)."
                + GroupSuggestion.didYouMean(group, among: held) + " On iOS containerURL(forSecurityApplicationGroupIdentifier:) returns nil here. "
                + "Fix: add the App Groups capability to the \(bundle) target and tick \(group) (both the app and every extension need it)."
        case let .invalidEntitlements(source, key, problem):
            return "invalid entitlements in \(source), key \(key): \(problem)"
        case let .missingIdentity(hint):
            return "no process identity: \(hint)"
        case let .invalidRoot(path, problem):
            return "cannot use container root \(path): \(problem)"
        case let .unsafePath(path, problem):
            return "refused path \(Self.quote(path)): \(problem)"
        case let .untrustedDirectory(path, owner, mode, user):
            return "refused directory \(path): it belongs to uid \(owner) (mode \(String(mode, radix: 8))), not to this process's user (uid \(user)), "
                + "so uid \(owner) could replace the files in it and they would be read as yours. Nothing in it was read or written. "
                + "Remove it so that it is made afresh, or, if you trust its contents, make it yours: chown \(user) and chmod 700 it."
        case let .notARegularFile(path, kind):
            return "\(path) is a \(kind), not a regular file: move it away and try again"
        case let .fileTooLarge(path, size, limit):
            if size == limit + 1 {
                return "\(path) holds more than the \(limit) bytes allowed (reading stopped there): it was not read"
            }
            return "\(path) is \(size) bytes, more than the \(limit) bytes allowed: it was not read"
        case let .systemCall(operation, path, code):
            return "\(operation)(\(path)) failed: \(code)" + Self.advice(for: code)
        case let .notDurable(path, operation, code):
            return "\(path) was changed and every process sees the change, but \(operation) failed: \(code), "
                + "so the change may not survive a power loss. Do not repeat it; check the device (free space, I/O errors)."
        case let .coordinationTimedOut(path, lockFile, seconds):
            // The holders as they are now, read when the message is made: a suspended
            // holder (the simulated device's lifecycle) stays stopped, so it is still there.
            let holders = LockHolder.holders(of: lockFile)
            guard holders.isEmpty else {
                return "timed out after \(seconds) s waiting to coordinate access to \(path): \(lockFile) is held by "
                    + holders.map(\.description).joined(separator: "; ") + ". Resume or end the holder, or raise the timeout."
            }
            return "timed out after \(seconds) s waiting to coordinate access to \(path): another thread or process holds \(lockFile). "
                + "Find the holder with `fuser \(lockFile)` or raise the timeout."
        case let .presenterDidNotAnswer(path, message, presenter, seconds):
            return "timed out after \(seconds) s waiting for a file presenter to answer \(message) before coordinating access to \(Self.quote(path)): "
                + "\(presenter) never called its completion handler. Make the presenter call it on every path (with an error to refuse), "
                + "or raise the timeout (environment variable \(PresenterTimeout.variable), in seconds)."
        case let .nestedCoordinationUpgrade(path):
            return "this thread holds a read coordination on \(path) and asked to write it: that would wait for itself forever. "
                + "Coordinate for writing from the start (or use the read-and-write form)."
        case let .olderLockingProtocol(path, lockFile):
            return "refused to coordinate \(Self.quote(path)): the lock file \(lockFile) of package 0.1.x (locking protocol 1) stands beside it, "
                + "so a process of 0.1.x uses this item, or did. 0.1.x locks beside items and this release in the container root's .coordination directory, "
                + "so the two would not exclude each other and writes could be lost. Update every app and extension that shares the container, "
                + "then remove the old lock files (they are hidden files named .<item>.lock: `rm \(lockFile)`, or "
                + "`find <root> -name '.*.lock' -not -path '*/Claims/.*.lock' -not -name '.consumer.lock' -delete` for the whole device, "
                + "which spares the share inbox's own lock files, Claims/.<session>.lock and Journal/.consumer.lock)."
        case let .identityScopeConflict(conflict):
            return conflict.description
        case let .invalidDeviceState(path, problem):
            return "the device's state record \(path) is not one this package writes: \(problem). It was not used and nothing was changed; "
                + "only the test process writes it (a target cannot): remove it, and the device starts unlocked, or set the state again (`appgroup device`)."
        case let .deviceStateChangeRefused(operation, state, problem):
            return "refused to \(operation) the device: it is \(state); \(problem). Nothing was changed."
        }
    }

    public var errorDescription: String? { description }

    private static func advice(for code: Errno) -> String {
        switch code {
        case .ENOSPC: return ". The disk is full: free space; the previous content is intact."
        case .EACCES, .EPERM: return ". Check the permissions of the container root."
        case .ELOOP: return ". A symbolic link stands where a file was expected; symbolic links are refused inside containers."
        case .EIO: return ". The device reported an I/O error; the previous content is intact."
        default: return ""
        }
    }

    /// `s` in double quotes, control characters escaped and long text cut: fit to
    /// quote input in a message.
    package static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += String(format: "\\u{%02X}", scalar.value)
            } else if scalar == "\"" {
                out += "\\\""
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        if out.count > 120 { out = String(out.prefix(100)) + "…(\(s.utf8.count) bytes)" }
        return out + "\""
    }
}
