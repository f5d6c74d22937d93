import AppGroupContainer
import Foundation
import ShareInbox

/// The share extension: the user shared a URL (and maybe a file); put it in the
/// group's inbox and finish. One line per item shared: `shared <sequence> <url>`.
enum ExtensionRole {
    static let help = """
        usage: ShareFlowDemo extension --root DIR --group ID [--entitlements FILE] --url URL
                                       [--title TEXT] [--file PATH] [--kind UTI] [--count N]
                                       [--team-id TEAM] [--bundle-id ID]
                                       [--require-token [--token-group GROUP]]

        Acts as a share extension: enqueues one shared item in the inbox of the App Group ID
        under the container root DIR, copying --file into the container, then exits 0. A file
        over 64 MiB (ShareInbox.attachmentByteLimit, the limit the app reads with) is refused:
        exit 1, nothing shared.
        Prints "shared <sequence> <url>" per item. With --count N it shares N items, the
        i-th with URL "<url>/<i>" (1-based).

        Identity: --entitlements FILE (an Xcode .entitlements file; --team-id, default
        A1B2C3D4E5, and --bundle-id, default the group without "group." plus ".share");
        else the identity in the environment (APP_GROUP_APPLICATION_IDENTIFIER...); else
        an identity entitled to --group. --root defaults to APP_GROUP_CONTAINERS_ROOT.

        --require-token reads the session token the app published in the shared keychain
        (access group --token-group, default the identity's first keychain-access-groups entry)
        before sharing, as Apple's guides recommend; it prints "session token: N bytes", never the
        token, and exits 1 without sharing when there is none or the target lacks the group.

        A bad or non-entitled group exits 1 with a one-line reason on stderr, writing nothing.
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let arguments = try Arguments(argv, options: RoleIdentity.identityOptions.union(["url", "title", "file", "kind", "count", "token-group"]),
                                      flags: ["require-token"])
        let urlText = try arguments.require("url")
        guard let url = URL(string: urlText), url.scheme != nil else {
            throw UsageError(message: "--url \(Arguments.quote(urlText)) is not an absolute URL")
        }
        let count = try arguments.int("count", default: 1, range: 1...1_000_000)
        let identity = try RoleIdentity(arguments, bundleSuffix: ".share")
        let inbox = try identity.inbox()
        if arguments.flag("require-token") {
            Output.line("session token: \(try SessionToken.require(arguments: arguments, identity: identity)) bytes")
        }
        let file = arguments.string("file").map { path in
            URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)).standardizedFileURL
        }
        for index in 1...count {
            let itemURL = count == 1 ? url : url.appendingPathComponent(String(index))
            let item = SharedItem(url: itemURL, title: arguments.string("title"), kind: arguments.string("kind") ?? "public.url",
                                  attachments: file.map { [SharedItem.Attachment(fileURL: $0)] } ?? [])
            let number = try inbox.enqueue(item)
            Output.line("shared \(number) \(itemURL.absoluteString)")
        }
        return 0
    }
}
