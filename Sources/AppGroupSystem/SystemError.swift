/// What the system layer throws: a failed call (the C function, the path, its
/// errno) or a file that the layer's policies refuse. AppGroupContainer, the only
/// module above it, passes each up as the case of its own `AppGroupError` that
/// carries the same facts.
package enum SystemError: Error, Sendable, Hashable {
    /// `operation` (the C function) on `path` failed with `errno`.
    case call(operation: String, path: String, errno: Errno)
    /// A symbolic link, or something else that is not what the path must be,
    /// stands on the way; `problem` says what and what to do.
    case unsafePath(path: String, problem: String)
    /// A file that must be a regular file is a `kind` (a FIFO, a directory...).
    case notARegularFile(path: String, kind: String)
    /// A file holds more than the reader accepts.
    case fileTooLarge(path: String, size: Int64, limit: Int64)
    /// A directory belongs to `owner`, not to the process's `user`.
    case untrustedDirectory(path: String, owner: UInt32, mode: UInt32, user: UInt32)

    /// The errno of a failed call; nil for the policy errors.
    package var errno: Errno? {
        if case let .call(_, _, code) = self { return code }
        return nil
    }
}
