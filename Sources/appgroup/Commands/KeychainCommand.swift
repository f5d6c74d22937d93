import AppGroupContainer
import Foundation
import PropertyLists
import SharedKeychain

/// `appgroup keychain list|delete|reset`: the simulated device's keychain, as an
/// administrator sees it (every identity's items), never printing a secret.
enum KeychainCommand {
    static let help = """
        usage: appgroup keychain list   [--root DIR] [--device NAME] [--group G] [--json]
               appgroup keychain delete [--root DIR] [--device NAME] FILTER...
               appgroup keychain reset  [--root DIR] [--device NAME]

        The keychain of the simulated device (every app's and every access group's items),
        as `xcrun simctl keychain` reaches a simulator's. A secret is never printed: only
        its size.
          list     each item: class, service (or server), account, access group,
                   accessibility, synchronizable, keychain, secret size, attribute count,
                   creation and modification dates, and for a protected item its access
                   control (e.g. .biometryCurrentSet, the enrolment it is bound to) and
                   whether a re-enrolment invalidated it; --group G lists one access group's.
                   With --json: an array of objects with those fields (accessControl:
                   flags, boundEnrollment, invalidated).
          delete   removes the items every given attribute matches exactly, and prints how
                   many; at least one of --class genp|inet, --service S, --account A,
                   --group G, --accessibility A (kSecAttrAccessible... name or raw value),
                   --synchronizable yes|no. Fails (exit 1) when nothing matches.
          reset    removes every item of every app and group; the device state stays.
        Changes take the keychain's write lock, as an app's do.

        Options:
          --device NAME  the device (default: APP_GROUP_KEYCHAIN_DEVICE, else "default")
          --root DIR     the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)
        """

    static func run(_ argv: [String]) throws {
        guard let sub = argv.first, !sub.hasPrefix("-") || sub == "-h" || sub == "--help" else {
            if argv.contains("--help") || argv.contains("-h") { return Output.line(help) }
            throw CLIError.usage("missing keychain command: list, delete or reset")
        }
        let rest = Array(argv.dropFirst())
        switch sub {
        case "--help", "-h", "help": Output.line(help)
        case "list": try list(rest)
        case "delete": try delete(rest)
        case "reset": try reset(rest)
        default: throw CLIError.usage("unknown keychain command \(Arguments.quote(sub)): use list, delete or reset")
        }
    }

    static let filterOptions: Set<String> = ["class", "service", "account", "group", "accessibility", "synchronizable"]

    /// The device the options name, under a root that must exist.
    static func device(_ arguments: Arguments) throws -> KeychainDevice {
        let inspector = try Inspector(rootOption: arguments.option("root"))
        try inspector.requireRoot()
        let name = arguments.option("device") ?? ProcessInfo.processInfo.environment[KeychainDevice.environmentKey].flatMap { $0.isEmpty ? nil : $0 }
        do {
            return try KeychainDevice(root: inspector.root, name: name ?? KeychainDevice.defaultName)
        } catch {
            throw CLIError.usage("\(error)")
        }
    }

    static func list(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: ["root", "device", "group"], flags: ["json"])
        if arguments.wantsHelp { return Output.line(help) }
        try arguments.expectPositionals(0...0, "no arguments besides the options")
        let device = try device(arguments)
        var items = try keychainCall { try device.itemSummaries() }
        if let group = arguments.option("group") {
            items = items.filter { Array($0.accessGroup.unicodeScalars) == Array(group.unicodeScalars) }
        }
        if arguments.flag("json") { return try Output.json(items.map(json)) }
        if items.isEmpty { return Output.line("no keychain items on \(device)" + (arguments.option("group").map { " in access group \($0)" } ?? "")) }
        for item in items { text(item).forEach(Output.line) }
    }

    static func delete(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: filterOptions.union(["root", "device"]), flags: [])
        if arguments.wantsHelp { return Output.line(help) }
        try arguments.expectPositionals(0...0, "no arguments besides the options")
        var synchronizable: Bool?
        if let raw = arguments.option("synchronizable") {
            switch raw.lowercased() {
            case "yes", "true", "1": synchronizable = true
            case "no", "false", "0": synchronizable = false
            default: throw CLIError.badValue("\"\(raw)\" is not a boolean: use yes or no (for --synchronizable)")
            }
        }
        if let raw = arguments.option("class"), raw != "genp" && raw != "inet" {
            throw CLIError.badValue("\"\(raw)\" is not an item class: use genp (generic password) or inet (internet password) (for --class)")
        }
        var filter = KeychainItemFilter()
        filter.classCode = arguments.option("class")
        filter.service = arguments.option("service")
        filter.account = arguments.option("account")
        filter.accessGroup = arguments.option("group")
        filter.accessibility = arguments.option("accessibility")
        filter.synchronizable = synchronizable
        guard !filter.isEmpty else {
            throw CLIError.usage("keychain delete needs at least one attribute to match (--class, --service, --account, --group, --accessibility, --synchronizable); keychain reset removes every item")
        }
        let device = try device(arguments)
        let removed = try keychainCall { try device.deleteItems(matching: filter) }
        guard !removed.isEmpty else {
            throw CLIError.notFound("no keychain item matches on \(device) (errSecItemNotFound); nothing was deleted")
        }
        Output.line("deleted \(removed.count) item(s)")
        for item in removed { Output.line("    " + headline(item)) }
    }

    static func reset(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: ["root", "device"], flags: [])
        if arguments.wantsHelp { return Output.line(help) }
        try arguments.expectPositionals(0...0, "no arguments besides the options")
        let device = try device(arguments)
        let count = try keychainCall { try device.resetKeychain() }
        Output.line("removed \(count) item(s) from \(device)")
    }

    static func keychainCall<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw CLIError.failed("\(error)")
        }
    }

    static func headline(_ item: KeychainItemSummary) -> String {
        var parts = [item.itemClass]
        if let service = item.service { parts.append("service \(PlutilText.quote(service))") }
        if let server = item.server { parts.append("server \(PlutilText.quote(server))") }
        parts.append("account \(PlutilText.quote(item.account))")
        return parts.joined(separator: "  ")
    }

    static func text(_ item: KeychainItemSummary) -> [String] {
        var lines = [
            headline(item),
            "    access group:   \(item.accessGroup.isEmpty ? "(none: file-based keychain)" : item.accessGroup)",
            "    accessibility:  \(item.accessibility)",
            "    synchronizable: \(item.synchronizable ? "yes" : "no")",
            "    keychain:       \(item.keychain)",
            "    secret:         \(item.valueBytes) bytes (never shown)",
            "    attributes:     \(item.attributeCount)",
            "    created:        \(item.created.map(Output.date) ?? "-")",
            "    modified:       \(item.modified.map(Output.date) ?? "-")",
        ]
        if let control = item.accessControl {
            let bound = control.boundEnrollment.map { " (bound to enrolment \($0))" } ?? ""
            lines.append("    access control: " + control.flags.map { "." + $0 }.joined(separator: ", ") + bound)
            lines.append("    invalidated:    " + invalidation(control))
        }
        return lines
    }

    /// Whether a protected item can still be opened, in words.
    static func invalidation(_ control: KeychainAccessControlSummary) -> String {
        switch control.isInvalidated {
        case true?: return "yes: the enrolled biometry changed since it was added; reads answer errSecItemNotFound (delete it and add it again)"
        case false?: return "no"
        case nil: return "unknown (the sensor file cannot be read)"
        }
    }

    static func json(_ item: KeychainItemSummary) -> [String: Any] {
        var object: [String: Any] = [
            "class": item.classCode, "account": item.account, "accessGroup": item.accessGroup,
            "accessibility": item.accessibility, "synchronizable": item.synchronizable, "keychain": item.keychain,
            "secretBytes": item.valueBytes, "attributes": item.attributeCount,
        ]
        if let service = item.service { object["service"] = service }
        if let server = item.server { object["server"] = server }
        if let created = item.created { object["created"] = Output.jsonValue(created) }
        if let modified = item.modified { object["modified"] = Output.jsonValue(modified) }
        if let control = item.accessControl {
            var access: [String: Any] = ["flags": control.flags, "invalidated": control.isInvalidated.map { $0 as Any } ?? NSNull()]
            if let bound = control.boundEnrollment { access["boundEnrollment"] = bound }
            object["accessControl"] = access
        }
        return object
    }
}
