import Foundation

/// A command-line mistake: reported in one line, exit status 64 (EX_USAGE).
struct UsageError: Error {
    let message: String
}

/// Options of one role, parsed by hand: `--name value` pairs and bare `--flag`s.
struct Arguments {
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    /// - Parameters:
    ///   - arguments: what follows the role's name.
    ///   - options: names that take a value; `flags`: names that take none.
    init(_ arguments: [String], options: Set<String>, flags knownFlags: Set<String>) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else {
                throw UsageError(message: "unexpected argument \(Self.quote(argument))")
            }
            let name = String(argument.dropFirst(2))
            if knownFlags.contains(name) {
                flags.insert(name)
                index += 1
            } else if options.contains(name) {
                guard index + 1 < arguments.count else { throw UsageError(message: "--\(name) needs a value") }
                if values[name] != nil { throw UsageError(message: "--\(name) is given twice") }
                values[name] = arguments[index + 1]
                index += 2
            } else {
                throw UsageError(message: "unknown option \(Self.quote(argument))")
            }
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    func string(_ name: String) -> String? { values[name] }

    func require(_ name: String) throws -> String {
        guard let value = values[name] else { throw UsageError(message: "missing --\(name)") }
        return value
    }

    func int(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(message: "--\(name) must be an integer from \(range.lowerBound) to \(range.upperBound), not \(Self.quote(text))")
        }
        return value
    }

    func seconds(_ name: String) throws -> Double? {
        guard let text = values[name] else { return nil }
        guard let value = Double(text), value.isFinite, value >= 0 else {
            throw UsageError(message: "--\(name) must be a number of seconds (0 or more), not \(Self.quote(text))")
        }
        return value
    }

    static func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "\n", with: "\\n") + "'" }
}
