import AppGroupContainer
import Foundation

// appgroup: look into and edit emulated App Group containers. Each command lives in
// Commands/; this file only dispatches and turns errors into exit statuses.

/// Runs the command named by `argv` (the arguments after the program name).
func run(_ argv: [String]) throws {
    guard let command = argv.first else {
        throw CLIError.usage("missing command: \(Help.commandList)")
    }
    let rest = Array(argv.dropFirst())
    switch command {
    case "--help", "-h", "help": Output.line(Help.overview)
    case "--version": Output.line("appgroup \(AppGroupContainerVersion.string)")
    case "path": try PathCommand.run(rest)
    case "list": try ListCommand.run(rest)
    case "create": try CreateCommand.run(rest)
    case "erase": try EraseCommand.run(rest)
    case "pending": try PendingCommand.run(rest)
    case "keychain": try KeychainCommand.run(rest)
    case "device": try DeviceCommand.run(rest)
    case "plist": try PlistCommand.run(rest)
    case "trace": try TraceCommand.run(rest)
    case "completion": try CompletionCommand.run(rest)
    case "defaults":
        guard let sub = rest.first else { throw CLIError.usage("missing defaults command: \(Help.defaultsList)") }
        let subRest = Array(rest.dropFirst())
        switch sub {
        case "--help", "-h", "help": Output.line(Help.defaults)
        case "read": try DefaultsReadCommand.run(subRest)
        case "read-type": try DefaultsReadTypeCommand.run(subRest)
        case "write": try DefaultsWriteCommand.run(subRest)
        case "delete": try DefaultsDeleteCommand.run(subRest)
        case "rename": try DefaultsRenameCommand.run(subRest)
        case "find": try DefaultsFindCommand.run(subRest)
        case "export": try DefaultsExportCommand.run(subRest)
        case "import": try DefaultsImportCommand.run(subRest)
        default: throw CLIError.usage("unknown defaults command \(Arguments.quote(sub)): use \(Help.defaultsList)")
        }
    default:
        throw CLIError.usage("unknown command \(Arguments.quote(command)): use \(Help.commandList)")
    }
}

/// The arguments, refusing any that is not UTF-8: `CommandLine.arguments` would
/// replace the bad bytes with U+FFFD, and a key or value would be stored changed.
func validatedArguments() throws -> [String] {
    var arguments: [String] = []
    for index in stride(from: 1, to: Int(CommandLine.argc), by: 1) {
        guard let raw = CommandLine.unsafeArgv[index] else { continue }
        guard let argument = String(validatingCString: raw) else {
            throw CLIError.usage("argument \(index) is not valid UTF-8; keys, values and names are stored exactly, so give them as UTF-8 text")
        }
        arguments.append(argument)
    }
    return arguments
}

do {
    try run(try validatedArguments())
    exit(0)
} catch let error as CLIError {
    Output.error(error.description)
    exit(error.exitCode)
} catch {
    Output.error("\(error)")
    exit(1)
}
