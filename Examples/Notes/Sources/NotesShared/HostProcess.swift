import Foundation

/// What the host executables share: one line per result on standard output, and
/// a failure as one line on standard error with an exit status.
public enum HostProcess {
    /// Thrown by a command for arguments it does not take: exit 64 with the usage.
    public struct UsageError: Error {
        /// What was wrong, if more than "not a command".
        public var problem: String?
        /// A usage error, with what was wrong if it says more than the usage line.
        public init(_ problem: String? = nil) { self.problem = problem }
    }

    /// Runs `command` with the process's arguments and exits: 0 when it returns,
    /// 64 (with `usage`) for a ``UsageError``, 1 (with the error) for any other error.
    public static func run(_ program: String, usage: String, _ command: ([String]) throws -> Void) -> Never {
        do {
            try command(Array(CommandLine.arguments.dropFirst()))
            exit(0)
        } catch let error as UsageError {
            fail("\(program): \(error.problem.map { $0 + "\n" } ?? "")usage: \(program) \(usage)", status: 64)
        } catch {
            fail("\(program): \(error)", status: 1)
        }
    }

    /// Writes `line` to standard output at once (a test may be waiting for it
    /// while the process runs; `print` would hold it in a buffer).
    public static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private static func fail(_ message: String, status: Int32) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(status)
    }
}
