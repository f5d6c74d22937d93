/// The arguments of one command, parsed by hand (no package dependencies):
/// positionals, `--name value` (or `--name=value`) options, bare `--flag`s,
/// `--help`/`-h` anywhere, and `--` to end options.
struct Arguments {
    private(set) var positionals: [String] = []
    private var values: [String: String] = [:]
    private var flags: Set<String> = []
    /// What follows the last expected positional, verbatim (the value of
    /// `defaults write`, where `-int` and `-5` are values, not options).
    private(set) var trailing: [String] = []
    /// True when `--help` or `-h` was given: the command prints its help, whatever else is wrong.
    private(set) var wantsHelp = false

    /// - Parameters:
    ///   - arguments: what follows the command's name.
    ///   - options: names (without `--`) that take a value; `flags`: names that take none.
    ///   - positionalsBeforeTrailing: once this many positionals are read, the rest is ``trailing``.
    /// - Throws: ``CLIError/usage(_:)`` for an unknown option, a missing or repeated value
    ///   (unless `--help` was given too).
    init(_ arguments: [String], options: Set<String>, flags knownFlags: Set<String>, positionalsBeforeTrailing: Int? = nil) throws {
        var problem: String?
        var onlyPositionals = false
        var index = 0
        while index < arguments.count {
            if let limit = positionalsBeforeTrailing, positionals.count == limit {
                trailing = Array(arguments[index...])
                break
            }
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" { onlyPositionals = true; continue }
            if argument == "--help" || argument == "-h" { wantsHelp = true; continue }
            guard argument.hasPrefix("--") else {
                problem = problem ?? "unknown option \(Self.quote(argument))"
                continue
            }
            let body = argument.dropFirst(2)
            let name = String(body.prefix(while: { $0 != "=" }))
            let inline = body.contains("=") ? String(body.drop(while: { $0 != "=" }).dropFirst()) : nil
            if knownFlags.contains(name) {
                if inline != nil { problem = problem ?? "--\(name) takes no value" }
                flags.insert(name)
            } else if options.contains(name) {
                var value = inline
                if value == nil, index < arguments.count {
                    value = arguments[index]
                    index += 1
                }
                guard let value else {
                    problem = problem ?? "--\(name) needs a value"
                    continue
                }
                if values[name] != nil { problem = problem ?? "--\(name) is given twice" }
                values[name] = value
            } else {
                problem = problem ?? "unknown option \(Self.quote(argument))"
            }
        }
        if let problem, !wantsHelp { throw CLIError.usage(problem) }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    func option(_ name: String) -> String? { values[name] }

    /// Throws unless the positionals number between `range`'s bounds; `names`
    /// describes them for the message (e.g. "GROUP [KEY]").
    func expectPositionals(_ range: ClosedRange<Int>, _ names: String) throws {
        try Self.expect(positionals, range, names)
    }

    /// As ``expectPositionals(_:_:)``, for positionals left after a command took its first ones.
    static func expect(_ positionals: [String], _ range: ClosedRange<Int>, _ names: String) throws {
        if positionals.count < range.lowerBound {
            throw CLIError.usage("missing arguments: expected \(names)")
        }
        if positionals.count > range.upperBound {
            let extra = positionals[range.upperBound...].map(Self.quote).joined(separator: " ")
            throw CLIError.usage("unexpected argument \(extra): expected \(names.isEmpty ? "no more arguments" : names)")
        }
    }

    static func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "\n", with: "\\n") + "'" }
}
