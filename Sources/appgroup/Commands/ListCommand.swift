import AppGroupContainer
import ShareInbox
import Foundation

/// `appgroup list [--root DIR] [--json]`: the groups present, each with its
/// suites, its pending inbox items and the bytes it uses.
enum ListCommand {
    static let help = """
        usage: appgroup list [--root DIR] [--json]

        Lists the App Groups whose containers are present under the container root,
        each with its container path, its defaults suites (the .plist files of
        Library/Preferences), the number of items pending in its share inbox and the
        bytes its files use (regular files). Symbolic links are never followed: a
        link standing where a container, a directory or a suite belongs is shown as
        a link, with its target. Nothing is created or consumed.

        Options:
          --json        print JSON: an array of {group, path, suites, pending, bytes, links}
                        (a group whose container is a link: {group, path, link})
          --root DIR    the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)

        Fails (exit 1) when the root does not exist.
        """

    struct Entry {
        var group: GroupIdentifier
        var path: URL
        var suites: [String]
        var pending: Int
        var bytes: Int64
        /// Symbolic links found inside the container (path relative to it, target).
        var links: [(String, String)]
    }

    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: ["root"], flags: ["json"])
        if arguments.wantsHelp { return Output.line(help) }
        try arguments.expectPositionals(0...0, "no arguments besides the options")
        let inspector = try Inspector(rootOption: arguments.option("root"))
        let entries = try inspector.groups().map { try entry($0, inspector: inspector) }
        let linked = try inspector.linkedGroups()
        if arguments.flag("json") {
            let real = entries.map { entry -> [String: Any] in
                ["group": entry.group.rawValue, "path": entry.path.path, "suites": entry.suites,
                 "pending": entry.pending, "bytes": Int(entry.bytes),
                 "links": entry.links.map { ["path": $0.0, "target": $0.1] }]
            }
            let links = linked.map { group, target -> [String: Any] in
                ["group": group.rawValue, "path": inspector.root.appendingPathComponent(group.rawValue).path, "link": target]
            }
            return try Output.json(real + links)
        }
        if entries.isEmpty && linked.isEmpty { return Output.line("no groups under \(inspector.root.path)") }
        for entry in entries {
            Output.line(entry.group.rawValue)
            Output.line("    path:    \(entry.path.path)")
            Output.line("    suites:  \(entry.suites.isEmpty ? "(none)" : entry.suites.joined(separator: ", "))")
            Output.line("    pending: \(entry.pending)")
            Output.line("    bytes:   \(entry.bytes)")
            for (path, target) in entry.links {
                Output.line("    link:    \(path) -> \(target) (symbolic link, not followed)")
            }
        }
        for (group, target) in linked {
            Output.line("\(group.rawValue) -> \(target) (symbolic link where a container belongs, not followed)")
        }
    }

    static func entry(_ group: GroupIdentifier, inspector: Inspector) throws -> Entry {
        let container = try inspector.resolver(for: group).containerLocation(for: group)
        var pending = 0
        do {
            pending = try GroupInbox.open(group, container: container, inspector: inspector)?.pendingCount() ?? 0
        } catch let error as ShareInboxError {
            throw CLIError.failed("cannot count the share inbox of \(group.rawValue): \(error)")
        }
        var links: [(String, String)] = []
        let bytes = walk(container, relative: "", links: &links)
        return Entry(group: group, path: container, suites: suites(in: container), pending: pending, bytes: bytes, links: links)
    }

    /// The suite names: regular `<name>.plist` files of a real Library/Preferences
    /// (not the hidden lock and temporary files, nor corrupt files moved aside,
    /// nor links).
    static func suites(in container: URL) -> [String] {
        let library = container.appendingPathComponent("Library", isDirectory: true)
        let preferences = library.appendingPathComponent("Preferences", isDirectory: true)
        guard FileKind(library) == .directory, FileKind(preferences) == .directory else { return [] }
        let names = (try? FileKind.names(in: preferences)) ?? []
        return names.filter { name in
            guard name.hasSuffix(".plist") && !name.hasPrefix(".") else { return false }
            if case .regular = FileKind(preferences.appendingPathComponent(name)) { return true }
            return false
        }.map { String($0.dropLast(6)) }.sorted()
    }

    /// The bytes of the regular files under `directory`, descending only into real
    /// directories; every symbolic link met is recorded in `links`, not followed.
    static func walk(_ directory: URL, relative: String, links: inout [(String, String)]) -> Int64 {
        var total: Int64 = 0
        for name in ((try? FileKind.names(in: directory)) ?? []).sorted() {
            let url = directory.appendingPathComponent(name)
            let path = relative.isEmpty ? name : relative + "/" + name
            switch FileKind(url) {
            case .regular(let size): total += size
            case .directory: total += walk(url, relative: path, links: &links)
            case .symbolicLink(let target): links.append((path, target))
            default: break
            }
        }
        return total
    }
}
