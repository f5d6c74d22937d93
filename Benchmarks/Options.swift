import Foundation

/// Command-line options as `--name value` pairs, with bare flags (`--json` without
/// a value is written `--flag`).
struct Options {
    var values: [String: String] = [:]
    var positional: [String] = []

    init(_ arguments: [String]) throws {
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            if argument.hasPrefix("--") {
                let name = String(argument.dropFirst(2))
                if Self.flags.contains(name) {
                    values[name] = "true"
                } else {
                    guard i + 1 < arguments.count else { throw BenchmarkError.usage("--\(name) needs a value") }
                    values[name] = arguments[i + 1]
                    i += 1
                }
            } else {
                positional.append(argument)
            }
            i += 1
        }
    }

    static let flags: Set<String> = ["list", "help"]

    func string(_ name: String) throws -> String {
        guard let value = values[name] else { throw BenchmarkError.usage("missing --\(name)") }
        return value
    }

    func int(_ name: String) throws -> Int {
        guard let value = Int(try string(name)) else { throw BenchmarkError.usage("--\(name) must be an integer") }
        return value
    }

    func flag(_ name: String) -> Bool { values[name] == "true" }
}

enum BenchmarkError: Error, CustomStringConvertible {
    case usage(String)
    case child(String)

    var description: String {
        switch self {
        case let .usage(message): return "usage: \(message) (see --help)"
        case let .child(message): return "a child process failed: \(message)"
        }
    }
}
