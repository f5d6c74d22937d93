#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

// The command-line plumbing every helper process of the tests shares: options as
// `--name value` pairs, a one-line failure on stderr, and unbuffered output lines.

/// The value after `--name`, or `fallback`; without either the process fails.
public func option(_ name: String, _ fallback: String? = nil) -> String {
    if let value = optionalOption(name) { return value }
    if let fallback { return fallback }
    fail("missing --\(name)")
}

/// The value after `--name`, nil when the option is absent.
public func optionalOption(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let i = arguments.firstIndex(of: "--" + name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}

/// ``option(_:_:)`` as an integer; a value that is not one fails the process.
public func intOption(_ name: String, _ fallback: Int? = nil) -> Int {
    guard let value = Int(option(name, fallback.map(String.init))) else { fail("--\(name) must be an integer") }
    return value
}

/// Writes `<process>: message` to stderr and exits with `code`.
public func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("\(ProcessInfo.processInfo.processName): \(message)\n".utf8))
    exit(code)
}

/// One write(2) per line, unbuffered: a line printed is a call that returned, even
/// if SIGKILL follows at once (tests count acknowledgements this way).
public func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes[offset...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { exit(9) }
        offset += n
    }
}
