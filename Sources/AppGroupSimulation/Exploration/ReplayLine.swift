import Foundation

/// One line that replays one schedule of an exploration exactly: the test, the
/// strategy, the seed, the faults allowed, and every decision taken (which process
/// went, and which fault struck where), as Shuttle prints a schedule string.
///
///     appgroup-explore 1;test=Notes;strategy=random;seed=0x2a;faults=jetsam,suspend;trace=0*2.1s.1.0
///
/// A trace token is a process's ordinal, then a fault's letter when iOS's fault
/// struck it there (`s` suspend, `j` jetsam, `t` terminate, `m` memory warning),
/// or `*N` for N turns of the same process in a row. A trace too long for the line
/// is `-`: the seed's choices replay it.
struct ReplayLine: Equatable {
    static let header = "appgroup-explore 1"
    /// The longest line written or read (bytes).
    static let limit = 8192
    /// The largest process ordinal and run length a trace may name.
    static let largest = 1_000_000

    var test: String
    var strategy: ExplorationStrategy
    var seed: UInt64
    var faults: Set<ExplorationFault>
    /// Nil: the seed's choices (the trace did not fit the line).
    var decisions: [ExploringScheduler.Decision]?

    var text: String {
        let name = test.addingPercentEncoding(withAllowedCharacters: Self.nameCharacters) ?? "Exploring"
        let faultList = faults.isEmpty ? "none" : faults.sorted().map(\.name).joined(separator: ",")
        let head = "\(Self.header);test=\(name);strategy=\(strategy.token);seed=0x\(String(seed, radix: 16));faults=\(faultList);trace="
        // No decision at all: the seed's choices are none as well.
        guard let decisions, !decisions.isEmpty else { return head + "-" }
        let trace = Self.encode(decisions)
        return head.utf8.count + trace.utf8.count <= Self.limit ? head + trace : head + "-"
    }

    private static let nameCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")

    private static func encode(_ decisions: [ExploringScheduler.Decision]) -> String {
        var tokens: [String] = []
        var index = 0
        while index < decisions.count {
            switch decisions[index] {
            case .fault(let ordinal, let fault):
                tokens.append("\(ordinal)\(fault.code)")
                index += 1
            case .grant(let ordinal):
                var run = 1
                while index + run < decisions.count, decisions[index + run] == .grant(ordinal) { run += 1 }
                tokens.append(run == 1 ? "\(ordinal)" : "\(ordinal)*\(run)")
                index += run
            }
        }
        return tokens.joined(separator: ".")
    }

    /// Reads a line strictly: every field in its place, nothing else.
    static func parse(_ line: String) throws(ReplayLineError) -> ReplayLine {
        let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count <= limit else {
            throw ReplayLineError(column: limit + 1, field: "line", problem: "it is \(text.utf8.count) bytes long, longer than the \(limit) a replay line may be")
        }
        if let bad = text.unicodeScalars.firstIndex(where: { $0.value < 0x20 || $0.value > 0x7E }) {
            let column = text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: bad) + 1
            throw ReplayLineError(column: column, field: "line", problem: "it holds a character a replay line never has (only printable ASCII)")
        }
        let fields = text.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard fields.first == header else {
            throw ReplayLineError(column: 1, field: "header", problem: "it does not begin with \"\(header);\" as a failing exploration prints it")
        }
        // Where each field begins (from 1), and its value.
        let keys = ["test", "strategy", "seed", "faults", "trace"]
        var starts: [Int] = []
        var values: [String] = []
        var at = header.count + 2
        for (offset, key) in keys.enumerated() {
            guard offset + 1 < fields.count else {
                throw ReplayLineError(column: text.count + 1, field: key, problem: "the line ends before its \(key)= field")
            }
            let field = fields[offset + 1]
            guard field.hasPrefix(key + "=") else {
                throw ReplayLineError(column: at, field: key, problem: "\"\(field.prefix(40))\" is where \(key)= belongs")
            }
            starts.append(at + key.count + 1)
            values.append(String(field.dropFirst(key.count + 1)))
            at += field.count + 1
        }
        guard fields.count == keys.count + 1 else {
            throw ReplayLineError(column: at - 1, field: "line", problem: "it goes on after the trace field")
        }
        guard !values[0].isEmpty, values[0].unicodeScalars.allSatisfy({ nameCharacters.contains($0) || $0 == "%" }),
              let test = values[0].removingPercentEncoding else {
            throw ReplayLineError(column: starts[0], field: "test", problem: "\"\(values[0].prefix(40))\" is not a test's name as the line writes it (letters, digits, ._- and %XX)")
        }
        guard let strategy = ExplorationStrategy(token: values[1]) else {
            throw ReplayLineError(column: starts[1], field: "strategy", problem: "\"\(values[1].prefix(40))\" is not random or pct:N (N from 1 to 1000)")
        }
        let digits = values[2].dropFirst(2)
        guard values[2].hasPrefix("0x"), (1...16).contains(digits.count), digits.allSatisfy(\.isHexDigit), let seed = UInt64(digits, radix: 16) else {
            throw ReplayLineError(column: starts[2], field: "seed", problem: "\"\(values[2].prefix(40))\" is not 0x and 1 to 16 hexadecimal digits")
        }
        var faults: Set<ExplorationFault> = []
        if values[3] != "none" {
            for name in values[3].split(separator: ",", omittingEmptySubsequences: false) {
                guard let fault = ExplorationFault.named(String(name)), faults.insert(fault).inserted else {
                    throw ReplayLineError(column: starts[3], field: "faults",
                                          problem: "\"\(name.prefix(40))\" is not one of \(ExplorationFault.all.sorted().map(\.name).joined(separator: ", ")) named once, nor is the list none")
                }
            }
        }
        let traceColumn = starts[4]
        let decisions = values[4] == "-" ? nil : try decode(values[4], column: traceColumn)
        return ReplayLine(test: test, strategy: strategy, seed: seed, faults: faults, decisions: decisions)
    }

    private static func decode(_ trace: String, column: Int) throws(ReplayLineError) -> [ExploringScheduler.Decision] {
        var decisions: [ExploringScheduler.Decision] = []
        var at = column
        for token in trace.split(separator: ".", omittingEmptySubsequences: false) {
            let problem = "\"\(token.prefix(40))\" is not a turn (N, N*COUNT) nor a fault (N and one of the letters s, j, t, m)"
            let digits = token.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 7, let ordinal = Int(digits), ordinal <= largest else {
                throw ReplayLineError(column: at, field: "trace", problem: problem)
            }
            let rest = token.dropFirst(digits.count)
            if rest.isEmpty {
                decisions.append(.grant(ordinal))
            } else if rest.count == 1, let fault = ExplorationFault.coded(rest.first!) {
                decisions.append(.fault(ordinal, fault))
            } else if rest.first == "*", let count = Int(rest.dropFirst()), rest.count <= 8, (2...largest).contains(count),
                      rest.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) {
                decisions += Array(repeating: .grant(ordinal), count: count)
            } else {
                throw ReplayLineError(column: at, field: "trace", problem: problem)
            }
            at += token.count + 1
        }
        guard !decisions.isEmpty else { throw ReplayLineError(column: column, field: "trace", problem: "it is empty (a trace, or - for the seed's choices)") }
        return decisions
    }
}

extension ExplorationStrategy {
    /// The strategy's word in a replay line.
    var token: String {
        switch self {
        case .random: "random"
        case .pct(let depth): "pct:\(depth)"
        }
    }

    init?(token: String) {
        if token == "random" { self = .random; return }
        guard token.hasPrefix("pct:"), token.count <= 8, token.dropFirst(4).allSatisfy({ $0.isASCII && $0.isNumber }),
              let depth = Int(token.dropFirst(4)), (1...1000).contains(depth) else { return nil }
        self = .pct(depth: depth)
    }
}

/// A replay line that cannot be used: malformed (where, and what is wrong), or
/// one whose replay took another order than the one it records.
public struct ReplayLineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The character (from 1) where the line goes wrong; nil when the line was
    /// well formed and its replay diverged.
    public let column: Int?
    /// The field at fault: `header`, `test`, `strategy`, `seed`, `faults`, `trace`, or `line`.
    public let field: String
    /// What is wrong, and what to do.
    public let problem: String

    init(column: Int?, field: String, problem: String) {
        self.column = column
        self.field = field
        self.problem = problem
    }

    public var description: String {
        guard let column else { return "the replay line cannot be replayed: \(problem)" }
        return "the replay line is malformed at character \(column), in its \(field) field: \(problem); pass the whole line a failing exploration printed"
    }
}
