import AppGroupContainer
import Foundation
import ShareInbox

/// The app: on launch, drain the group's inbox and print every item; with
/// `--watch`, stay running and drain whenever the inbox signals a change.
enum AppRole {
    static let help = """
        usage: ShareFlowDemo app --root DIR --group ID [--entitlements FILE] [--json]
                                 [--watch [--until N] [--timeout S]] [--handler-delay S]
                                 [--stale-staging-age S] [--team-id TEAM] [--bundle-id ID]
                                 [--publish-token TOKEN [--token-group GROUP]]

        Acts as the app: drains the inbox of the App Group ID under the container root DIR,
        printing each item as it is handed over (with --json one object per line: sequence,
        url, title, kind, sender, and file, files, fileBytes, fileChecksum when it has
        attachments), then exits 0.

          --watch                 after draining, stay running and drain again whenever the
                                  inbox directory changes (inotify; no polling); exits after
                                  --until N items in all (status 3 if --timeout S passes first)
          --handler-delay S       pause S seconds in the handler after printing an item, before
                                  it is removed (to test an app killed mid-drain)
          --stale-staging-age S   remove staging directories of dead enqueues older than S
                                  seconds (default 3600)
          --publish-token TOKEN   on launch, publish TOKEN as the user's session token in the
                                  shared keychain (access group --token-group, default the
                                  identity's first keychain-access-groups entry), for the
                                  extensions to read

        Identity and root as for the extension role (default bundle id: the group without
        "group.").
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let arguments = try Arguments(argv, options: RoleIdentity.identityOptions.union(["until", "timeout", "handler-delay", "stale-staging-age",
                                                                                     "publish-token", "token-group"]),
                                      flags: ["json", "watch"])
        let json = arguments.flag("json")
        let until = try arguments.int("until", default: 0, range: 0...Int.max)
        let timeout = try arguments.seconds("timeout")
        let delay = try arguments.seconds("handler-delay") ?? 0
        let watch = arguments.flag("watch")
        if !watch && (arguments.string("until") != nil || timeout != nil) {
            throw UsageError(message: "--until and --timeout go with --watch")
        }
        let identity = try RoleIdentity(arguments, bundleSuffix: "")
        var inbox = try identity.inbox()
        if let token = arguments.string("publish-token") {
            try SessionToken.publish(token, arguments: arguments, identity: identity)
        }
        if let age = try arguments.seconds("stale-staging-age") { inbox.staleStagingAge = age }

        var received = 0
        let handler: (ReceivedItem) throws -> Void = { item in
            try report(item, json: json)
            received += 1
            if delay > 0 { usleep(UInt32(min(delay, 3600) * 1_000_000)) }
        }
        guard watch else {
            try inbox.drain(handler)
            return 0
        }
        // Watch first, then drain, so that nothing published in between is missed.
        let signal = DispatchSemaphore(value: 0)
        let watcher = try inbox.observe { signal.signal() }
        defer { watcher.cancel() }
        Output.error("watching \(inbox.itemsDirectory.path)")
        let deadline = timeout.map { DispatchTime.now() + $0 } ?? .distantFuture
        try inbox.drain(handler)
        while until == 0 || received < until {
            if signal.wait(timeout: deadline) == .timedOut { return until == 0 ? 0 : 3 }
            try inbox.drain(handler)
        }
        return 0
    }

    nonisolated(unsafe) static let dateFormatter = ISO8601DateFormatter() // main thread only

    /// Prints an item and reads its attachments, as an app importing them would.
    static func report(_ item: ReceivedItem, json: Bool) throws {
        var files: [(name: String, bytes: Int, checksum: String)] = []
        for url in item.attachments {
            // The inbox's own limit: the drain never hands over a larger attachment.
            let data = try AtomicFile.read(url, below: .marked(above: url), limit: ShareInbox.attachmentByteLimit) ?? Data()
            files.append((url.lastPathComponent, data.count, Checksum.fnv1a(data)))
        }
        if json {
            var object: [String: Any] = ["sequence": item.sequenceNumber, "kind": item.kind,
                                         "date": dateFormatter.string(from: item.date)]
            if let url = item.url { object["url"] = url.absoluteString }
            if let title = item.title { object["title"] = title }
            if let sender = item.senderBundleIdentifier { object["sender"] = sender }
            if let first = files.first {
                object["file"] = first.name
                object["fileBytes"] = first.bytes
                object["fileChecksum"] = first.checksum
                object["files"] = files.map(\.name)
            }
            Output.json(object)
        } else {
            var text = "received #\(item.sequenceNumber) \(item.url?.absoluteString ?? "(no url)")"
            if let title = item.title { text += " \"\(title)\"" }
            for file in files { text += " [\(file.name), \(file.bytes) bytes]" }
            if let sender = item.senderBundleIdentifier { text += " from \(sender)" }
            Output.line(text)
        }
    }
}

/// FNV-1a, 64 bits: enough to tell a copied file from a torn one in a demo.
enum Checksum {
    static func fnv1a(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
