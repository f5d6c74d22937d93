import AppGroupContainer
import Foundation
import ShareInbox

/// `appgroup pending [--root DIR] GROUP [--json]`: the items waiting in the
/// group's share inbox, read without consuming them.
enum PendingCommand {
    static let help = """
        usage: appgroup pending [--root DIR] GROUP [--json]

        Lists the items waiting in the share inbox of the App Group GROUP (what the app's
        next drain would receive), in enqueue order, without claiming, moving or removing
        any: an app or extension running meanwhile is not disturbed. Items a drain is
        handling at that moment are not listed. appgroup acts as an identity entitled to GROUP.

        Text: one block per item (sequence number, kind, date, sender, then title, URL and
        attachments with their sizes), or "no pending items". With --json: an array of
        objects {sequence, kind, date, sender, title, url, attachments: [{name, path, bytes}]}.

        Options:
          --json        print JSON
          --root DIR    the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)
        """

    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: ["root"], flags: ["json"])
        if arguments.wantsHelp { return Output.line(help) }
        try arguments.expectPositionals(1...1, "GROUP")
        let inspector = try Inspector(rootOption: arguments.option("root"))
        let (group, container) = try inspector.existingGroup(arguments.positionals[0])
        let items: [ReceivedItem]
        do {
            items = try GroupInbox.open(group, container: container, inspector: inspector)?.pendingItems() ?? []
        } catch let error as ShareInboxError {
            throw CLIError.failed("cannot list the share inbox of \(group.rawValue): \(error)")
        }
        if arguments.flag("json") { return try Output.json(items.map(json)) }
        if items.isEmpty { return Output.line("no pending items in the share inbox of \(group.rawValue)") }
        for item in items { text(item).forEach(Output.line) }
    }

    static func text(_ item: ReceivedItem) -> [String] {
        var lines = ["#\(item.sequenceNumber)  \(item.kind)  \(Output.date(item.date))"
                     + (item.senderBundleIdentifier.map { "  from \($0)" } ?? "")]
        if let title = item.title { lines.append("    title: \(title)") }
        if let url = item.url { lines.append("    url: \(url.absoluteString)") }
        for file in item.attachments {
            lines.append("    attachment: \(file.lastPathComponent) (\(GroupInbox.size(of: file)) bytes)")
        }
        return lines
    }

    static func json(_ item: ReceivedItem) -> [String: Any] {
        var object: [String: Any] = [
            "sequence": Int(clamping: item.sequenceNumber),
            "kind": item.kind,
            "date": Output.jsonValue(item.date),
            "attachments": item.attachments.map { file -> [String: Any] in
                ["name": file.lastPathComponent, "path": file.path, "bytes": Int(GroupInbox.size(of: file))]
            },
        ]
        if let sender = item.senderBundleIdentifier { object["sender"] = sender }
        if let title = item.title { object["title"] = title }
        if let url = item.url { object["url"] = url.absoluteString }
        return object
    }
}
