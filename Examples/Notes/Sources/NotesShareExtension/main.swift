// The share extension's process, reduced to what the tests drive. On iOS this
// is the extension's view controller handing the share sheet's URL over.
//
//   NotesShareExtension share URL     queue URL for the app
//   NotesShareExtension last-shared   print the last shared URL this target sees
//   NotesShareExtension session       print the app's session token
import Foundation
import NotesShared

do {
    let arguments = Array(CommandLine.arguments.dropFirst())
    switch (arguments.first, arguments.count) {
    case ("share", 2):
        guard let url = URL(string: arguments[1]) else {
            FileHandle.standardError.write(Data("NotesShareExtension: \(arguments[1]) is not a URL\n".utf8))
            exit(65)
        }
        print("shared \(try ShareExtension.share(url).url.absoluteString)")
    case ("last-shared", 1):
        print("last shared \(NotesSettings()?.lastSharedURL?.absoluteString ?? "none")")
    case ("session", 1):
        print("session \(try SessionStore.token() ?? "none")")
    default:
        FileHandle.standardError.write(Data("usage: NotesShareExtension share URL | last-shared | session\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("NotesShareExtension: \(error)\n".utf8))
    exit(1)
}
