import Foundation
import AppGroupSystem

/// The process's standard input, read through the system-call layer and bounded:
/// `FileHandle.readDataToEndOfFile()` reads everything first, so an endless pipe
/// (`yes | tool -`) grows the process until the system kills it.
package enum StandardInput {
    /// How standard input is named in errors.
    package static let name = "<standard input>"

    /// Every byte of standard input to its end, reading at most `limit + 1` bytes.
    /// - Throws: ``AppGroupError/fileTooLarge(path:size:limit:)`` (size `limit + 1`)
    ///   when there is more than `limit`: nothing past that byte was read; a
    ///   ``AppGroupError/systemCall(operation:path:errno:)`` when a read fails.
    package static func readAll(limit: Int64) throws(AppGroupError) -> Data {
        // A regular file's size sizes the first buffer; a pipe's says nothing (0),
        // and a short read from one is not its end.
        try fromSystem { () throws(SystemError) -> Data in
            let st = try SystemCalls.fstat(0, path: name)
            return try SystemCalls.readAll(0, path: name, sizeHint: SystemCalls.isRegular(st) ? Int(st.st_size) : 0, limit: limit)
        }
    }
}
