import AppGroupContainer
import AppGroupSimulation // ExtensionMain
import Foundation

// ShareFlowDemo: the App Group share flow with real processes. One binary, several
// roles: `extension` (a share extension sharing an item), `app` (the app draining
// its inbox) and `run` (the whole scenario, the default).

/// The top-level help: each role's own usage, once, then how to get the rest.
func overview(_ roles: [(name: String, help: String)]) -> String {
    let synopses = roles.map { role in
        role.help.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }.joined(separator: "\n")
    }
    return synopses.joined(separator: "\n") + """

        usage: ShareFlowDemo help [ROLE] | --help | -h | --version

        The App Group share flow with real processes. One binary in three roles: `run`
        (the whole scenario, the default: with no arguments it runs on a fresh temporary
        root), `extension` (a share extension sharing an item) and `app` (the app draining
        its inbox). `ShareFlowDemo ROLE --help` (or -h, or `ShareFlowDemo help ROLE`)
        describes each role and its options.
        """
}

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
// Started by the share sheet (SimulatedDevice.share) as the extension: its request
// goes to the principal object, as iOS hands it to the extension's view controller.
if ExtensionMain.hasRequest, argv.first == "extension" {
    ExtensionMain.run(ShareViewController(arguments: Array(argv.dropFirst())))
}
let roleList: [(name: String, help: String)] = [("run", ScenarioRole.help), ("extension", ExtensionRole.help), ("app", AppRole.help)]
let roles: [String: (help: String, run: ([String]) throws -> Int32)] = [
    "extension": (ExtensionRole.help, ExtensionRole.run),
    "app": (AppRole.help, AppRole.run),
    "run": (ScenarioRole.help, ScenarioRole.run),
]
let helpWords: Set<String> = ["--help", "-h", "help"]

if argv.contains("--version") {
    Output.line("ShareFlowDemo \(AppGroupContainerVersion.string)")
    exit(0)
}
// `help`, `--help`, `-h` first: the overview, or with a role after it that role's help.
if let first = argv.first, helpWords.contains(first) {
    guard let name = argv.dropFirst().first else {
        Output.line(overview(roleList))
        exit(0)
    }
    guard let entry = roles[name] else {
        Output.error("ShareFlowDemo: unknown role '\(name)' (roles: app, extension, run; see --help)")
        exit(64)
    }
    Output.line(entry.help)
    exit(0)
}

let role: String
let rest: [String]
if let first = argv.first, !first.hasPrefix("-") {
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
    Output.line(entry.help)
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
