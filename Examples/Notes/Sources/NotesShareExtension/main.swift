// The share extension's process, reduced to what the tests drive. On iOS this
// is the extension's view controller handing over what the share sheet gave it.
import Foundation
import NotesShared
#if !canImport(Darwin)
import AppGroupSimulation  // ExtensionMain

// Started by the share sheet (SimulatedDevice.share): the request goes to the
// principal object, as iOS hands it to the class Info.plist names.
if ExtensionMain.hasRequest {
    ExtensionMain.run(ShareViewController())
}
#endif

HostProcess.run("NotesShareExtension", usage: "share URL | share-file PATH | last-shared | session | about") { arguments in
    switch (arguments.first, arguments.count) {
    case ("share", 2):
        // Queue URL for the app.
        guard let url = URL(string: arguments[1]) else { throw HostProcess.UsageError("\(arguments[1]) is not a URL") }
        HostProcess.say("shared \(try ShareExtension.share(url).url.absoluteString)")
    case ("share-file", 2):
        // A file the share sheet handed over: read, then queued.
        HostProcess.say("shared \(try ShareExtension.shareFile(at: URL(fileURLWithPath: arguments[1])).url.absoluteString)")
    case ("last-shared", 1):
        // The last shared URL, as this target's defaults suite has it.
        HostProcess.say("last shared \(NotesSettings()?.lastSharedURL?.absoluteString ?? "none")")
    case ("session", 1):
        // The session token the app published.
        HostProcess.say("session \(try SessionStore.token() ?? "none")")
    case ("about", 1):
        AppIdentity.lines.forEach(HostProcess.say)
    default:
        throw HostProcess.UsageError()
    }
}
