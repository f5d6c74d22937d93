import AppGroupContainer
import Foundation

/// What an error met reading the inbox says about the data, so that a failure of
/// the moment is never taken for damage. One that says nothing about the data
/// (``isTransient(_:)``: out of descriptors or memory, an I/O error, a full disk)
/// leaves it where it is: the drain skips it for now, with a warning, and a later
/// drain reads it. Only content that is no item, or the wrong kind of file at a
/// name (``isDamage(_:)``, ``isWrongKind(_:)``), or what cannot be opened for good
/// (a permission), is set aside.
enum InboxFailure {
    /// True when `error` says what stands at a name is not what belongs there: a
    /// symbolic link (never followed), a FIFO, a directory, a socket, a device.
    /// Such a thing is not an item, and may be set aside.
    static func isWrongKind(_ error: any Error) -> Bool {
        switch error as? AppGroupError {
        case .unsafePath?, .notARegularFile?:
            return true
        case let .systemCall(_, _, code)?:
            // ELOOP: a link under O_NOFOLLOW; EISDIR: a directory opened to write;
            // ENXIO: a socket; ENOTDIR: a file where a directory is walked through.
            return code == .ELOOP || code == .EISDIR || code == .ENOTDIR || code.rawValue == ENXIO
        default:
            return false
        }
    }

    /// True when `error` says the bytes read are not an item: a record that does
    /// not decode, an attachment missing or not the size recorded, a file over the
    /// limit. With ``isWrongKind(_:)``, the only errors that quarantine.
    static func isDamage(_ error: any Error) -> Bool {
        if error is ShareInboxError { return true }
        if case .fileTooLarge? = error as? AppGroupError { return true }
        return isWrongKind(error)
    }

    /// True when `error` is a failure of the moment that says nothing about the
    /// data: out of descriptors (EMFILE, ENFILE) or memory (ENOMEM), interrupted
    /// (EINTR, EAGAIN), an I/O error (EIO), no space (ENOSPC, EDQUOT), no lock
    /// (ENOLCK), busy (EBUSY). What met one stays where it is, for a later drain.
    static func isTransient(_ error: any Error) -> Bool {
        let code: Errno?
        switch error as? AppGroupError {
        case let .systemCall(_, _, errno)?: code = errno
        case let .notDurable(_, _, errno)?: code = errno
        default: code = nil
        }
        guard let code else { return false }
        return [Errno.EMFILE, .ENFILE, .ENOMEM, .EINTR, .EAGAIN, .EIO, .ENOSPC, .EDQUOT, .ENOLCK, .EBUSY].contains(code)
    }

    /// True when the process ran out of descriptors (EMFILE, ENFILE): closing some
    /// of its own may let the call succeed.
    static func isOutOfDescriptors(_ error: any Error) -> Bool {
        guard let code = FileOperations.errno(of: error) else { return false }
        return code == .EMFILE || code == .ENFILE
    }
}
