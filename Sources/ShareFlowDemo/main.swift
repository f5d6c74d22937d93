import Foundation

// ShareFlowDemo: the App Group share flow with real processes. One binary, several
// roles: `extension` (a share extension sharing an item), `app` (the app draining
// its inbox) and `run` (the whole scenario, the default).

let usage = """
    usage: ShareFlowDemo [run] [--extensions K] [--items M] [--root DIR] [--json] [--keep]
           ShareFlowDemo extension --root DIR --group ID [--entitlements FILE] --url URL [--title TEXT] [--file PATH]
           ShareFlowDemo app --root DIR --group ID [--entitlements FILE] [--json] [--watch]
           ShareFlowDemo <role> --help

    With no arguments, runs the whole share flow on a fresh temporary root.
    """

// A parent may have ignored or blocked these (a test runner does); the app role
// runs until told to stop, so make SIGTERM and SIGINT stop it.
for signalNumber in [SIGTERM, SIGINT] {
    signal(signalNumber, SIG_DFL)
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, signalNumber)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
}

let argv = Array(CommandLine.arguments.dropFirst())
let roles: [String: (help: String, run: ([String]) throws -> Int32)] = [
    "extension": (ExtensionRole.help, ExtensionRole.run),
    "app": (AppRole.help, AppRole.run),
    "run": (ScenarioRole.help, ScenarioRole.run),
]

let role: String
let rest: [String]
if let first = argv.first, !first.hasPrefix("--") {
    role = first
    rest = Array(argv.dropFirst())
} else {
    role = "run"
    rest = argv
}

guard let entry = roles[role] else {
    Output.error("ShareFlowDemo: unknown role '\(role)' (roles: app, extension, run; see --help)")
    exit(64)
}
if rest.contains("--help") || rest.contains("-h") {
    Output.line(argv.isEmpty || argv.first == "--help" ? usage + "\n\n" + entry.help : entry.help)
    exit(0)
}
do {
    exit(try entry.run(rest))
} catch let error as UsageError {
    Output.error("ShareFlowDemo \(role): \(error.message) (see ShareFlowDemo \(role) --help)")
    exit(64)
} catch {
    Output.failure(role, error)
    exit(1)
}
