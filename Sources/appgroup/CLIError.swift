/// The tool's errors: each becomes one line on stderr and a non-zero exit status.
enum CLIError: Error, CustomStringConvertible {
    /// Wrong arguments: exit 64 (EX_USAGE).
    case usage(String)
    /// A value that does not parse as its type: exit 65 (EX_DATAERR).
    case badValue(String)
    /// Something asked for is not there (a container root, a group, a suite, a key): exit 1.
    case notFound(String)
    /// The library refused or failed (a corrupt suite file, a disk error): exit 1.
    case failed(String)

    var description: String {
        switch self {
        case let .usage(message): return message + " (see --help)"
        case let .badValue(message), let .notFound(message), let .failed(message): return message
        }
    }

    var exitCode: Int32 {
        switch self {
        case .usage: return 64
        case .badValue: return 65
        case .notFound, .failed: return 1
        }
    }
}
