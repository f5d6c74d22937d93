import Foundation

// appgroup: look into and edit emulated App Group containers. Each command lives in
// Commands/; this file only dispatches and turns errors into exit statuses.

/// Runs the command named by `argv` (the arguments after the program name).
func run(_ argv: [String]) throws {
    guard let command = argv.first else {
        throw CLIError.usage("missing command: path, list, defaults read|write|delete or pending")
    }
    let rest = Array(argv.dropFirst())
    switch command {
    case "--help", "-h", "help": Output.line(Help.overview)
    case "path": try PathCommand.run(rest)
    case "list": try ListCommand.run(rest)
    case "pending": try PendingCommand.run(rest)
    case "defaults":
        guard let sub = rest.first else { throw CLIError.usage("missing defaults command: read, write or delete") }
        let subRest = Array(rest.dropFirst())
        switch sub {
        case "--help", "-h", "help": Output.line(Help.defaults)
        case "read": try DefaultsReadCommand.run(subRest)
        case "write": try DefaultsWriteCommand.run(subRest)
        case "delete": try DefaultsDeleteCommand.run(subRest)
        default: throw CLIError.usage("unknown defaults command \(Arguments.quote(sub)): use read, write or delete")
        }
    default:
        throw CLIError.usage("unknown command \(Arguments.quote(command)): use path, list, defaults or pending")
    }
}

do {
    try run(Array(CommandLine.arguments.dropFirst()))
    exit(0)
} catch let error as CLIError {
    Output.error(error.description)
    exit(error.exitCode)
} catch {
    Output.error("\(error)")
    exit(1)
}
