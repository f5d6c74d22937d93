import Foundation
import AppGroupSystem

/// The process's standard output and error, written through the system-call layer.
/// Unlike `FileHandle.write`, which traps on a closed pipe, a reader gone away is
/// an error the caller sees (``isBrokenPipe(_:)``) and can clean up after.
package enum StandardStream: Int32, Sendable {
    case output = 1
    case error = 2

    /// Writes every byte of `data`.
    /// - Throws: ``AppGroupError/systemCall(operation:path:errno:)``; EPIPE when the
    ///   reader closed the pipe (with SIGPIPE ignored, else the signal ends the process).
    package func write(_ data: Data) throws(AppGroupError) {
        try fromSystem(SystemCalls.writeAll(rawValue, data, path: self == .output ? "<standard output>" : "<standard error>"))
    }

    /// True for the error of a write to a pipe whose reader is gone.
    package static func isBrokenPipe(_ error: any Error) -> Bool {
        FileOperations.errno(of: error) == Errno(rawValue: EPIPE)
    }
}
