// The app's process, reduced to what the tests drive. On iOS, `launch` is what
// the app does in `scene(_:willConnectTo:)` and `sceneWillEnterForeground`.
import Foundation
import NotesShared

HostProcess.run("NotesApp", usage: "launch [--without-widget-reload] | run [--count N] | sign-in TOKEN | save-draft TEXT | about") { arguments in
    switch arguments.first {
    case "launch" where arguments == ["launch"] || arguments == ["launch", "--without-widget-reload"]:
        // Receive waiting shares, print them, exit (forgetting the widget: the classic bug).
        let library = try NotesLibrary()
        for item in try library.receiveShares(reloadingWidget: arguments.count == 1) { HostProcess.say("received \(item.url.absoluteString)") }
        HostProcess.say("notes \(try library.notes().count)")
        HostProcess.say("last shared \(NotesSettings()?.lastSharedURL?.absoluteString ?? "none")")
    case "run":
        // Stay in the foreground: print each share as it arrives; exit after N new notes.
        var wanted = 1
        if arguments.count == 3, arguments[1] == "--count" {
            guard let count = Int(arguments[2]), count > 0 else { throw HostProcess.UsageError("--count takes a whole number above 0") }
            wanted = count
        } else if arguments.count != 1 {
            throw HostProcess.UsageError()
        }
        try runInForeground(untilReceived: wanted)
    case "sign-in" where arguments.count == 2:
        // Publish the session token to the extensions.
        try SessionStore.publish(token: arguments[1])
        HostProcess.say("signed in")
    case "save-draft" where arguments.count == 2:
        // An unfinished note, in the app's own Documents (no extension sees it).
        let documents = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
        let draft = documents.appendingPathComponent("Draft.txt")
        try Data(arguments[1].utf8).write(to: draft, options: .atomic)
        HostProcess.say("saved \(draft.path)")
    case "about" where arguments.count == 1:
        AppIdentity.lines.forEach(HostProcess.say)
    default:
        throw HostProcess.UsageError()
    }
}

func runInForeground(untilReceived wanted: Int) throws {
    let done = DispatchSemaphore(value: 0)
    let total = LockedCount()
    let receiver = try ShareReceiver { outcome in
        switch outcome {
        case let .success(items):
            for item in items { HostProcess.say("received \(item.url.absoluteString)") }
            if total.add(items.count) >= wanted { done.signal() }
        case let .failure(error):
            FileHandle.standardError.write(Data("NotesApp: \(error)\n".utf8))
        }
    }
    receiver.start()
    HostProcess.say("ready")
    done.wait()
    receiver.stop()
}

/// The number of notes received so far, counted on the receiver's queue.
final class LockedCount: @unchecked Sendable {
    // @unchecked: `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value = 0
    func add(_ count: Int) -> Int {
        // lock()/unlock(): NSLock.withLock needs macOS 14 in Apple's Foundation.
        lock.lock()
        defer { lock.unlock() }
        value += count
        return value
    }
}
