#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Calls on open descriptors that the queue and journal primitives of the modules
/// above need: positioned reads, and giving a file a new name in one directory
/// without ever replacing what is there.
extension SystemCalls {
    /// pread(2) once: up to `buffer.count` bytes from `offset` (fewer at the end,
    /// which for a regular file nobody writes meanwhile is its end).
    package static func pread(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64, path: String) throws(SystemError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        return try valueOrErrno(retryOnInterrupt: true) { system_pread(fd, base, buffer.count, off_t(offset), path: path) }.get("pread", path)
    }

    /// pread(2) until `count` bytes or the end of the file, into `buffer`, from
    /// `offset`. Returns how many bytes were read (fewer only at the end).
    package static func readAll(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64, path: String) throws(SystemError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var length = 0
        while length < buffer.count {
            let n = try valueOrErrno(retryOnInterrupt: true) {
                system_pread(fd, base + length, buffer.count - length, off_t(offset) + off_t(length), path: path)
            }.get("pread", path)
            if n == 0 { break }
            length += n
        }
        return length
    }

    /// How ``renameWithoutReplacing(at:_:to:path:)`` ended when it did not succeed.
    package enum NoReplaceOutcome: Sendable {
        /// Moved: `from` is gone, `to` names the file.
        case moved
        /// The file system cannot rename without replacing (renameat2's
        /// RENAME_NOREPLACE is EINVAL, ENOSYS or EOPNOTSUPP there).
        case unsupported
    }

    /// renameat2(2) with RENAME_NOREPLACE (agc_rename_noreplace) within one
    /// directory: `to` is never replaced.
    /// - Throws: ``SystemError/call(operation:path:errno:)`` (`renameat2`): EEXIST
    ///   when `to` is taken, ENOENT when `from` is gone.
    package static func renameWithoutReplacing(at directory: Int32, _ from: String, to: String, path: String) throws(SystemError) -> NoReplaceOutcome {
        switch nothingOrErrno(retryOnInterrupt: true, { system_renameat_noreplace(directory, from, to, path: path) }) {
        case .success:
            return .moved
        case .failure(let code) where code == .EINVAL || code == .ENOSYS || code.rawValue == EOPNOTSUPP:
            return .unsupported
        case .failure(let code):
            throw .call(operation: "renameat2", path: path, errno: code)
        }
    }

    /// linkat(2) within one directory, not following a link at `from`: a second
    /// name, refused (EEXIST) when `to` is taken.
    package static func link(at directory: Int32, _ from: String, to: String, path: String) throws(SystemError) {
        try nothingOrErrno(retryOnInterrupt: true) { system_linkat(directory, from, to, path: path) }.get("linkat", path)
    }
}

extension SystemCalls {
    /// ``writeAll(_:_:path:)`` of `data`. (Data's `withUnsafeBytes` rethrows an
    /// untyped error, so the bytes are written inside it and the outcome carried
    /// out as a value.)
    package static func writeAll(_ fd: Int32, _ data: Data, path: String) throws(SystemError) {
        let outcome = data.withUnsafeBytes { bytes in Result { () throws(SystemError) in try writeAll(fd, bytes, path: path) } }
        try outcome.get()
    }

    /// ``writeAll(_:_:at:path:)`` of `data` at `offset`.
    package static func writeAll(_ fd: Int32, _ data: Data, at offset: Int64, path: String) throws(SystemError) {
        let outcome = data.withUnsafeBytes { bytes in Result { () throws(SystemError) in try writeAll(fd, bytes, at: offset, path: path) } }
        try outcome.get()
    }
}
