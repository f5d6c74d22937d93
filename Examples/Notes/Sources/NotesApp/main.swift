// The app's process, reduced to what the tests drive. On iOS, `launch` is what
// the app does in `scene(_:willConnectTo:)` and `sceneWillEnterForeground`.
//
//   NotesApp launch            receive waiting shares, print them, exit
//   NotesApp run --count N     stay in the foreground: print each share as it
//                              arrives; exit after N new notes
//   NotesApp sign-in TOKEN     publish the session token to the extensions
import Foundation
import NotesShared

func say(_ line: String) {
    // Unbuffered: a test waits for these lines while the app runs.
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func report(_ received: [SharedItem]) {
    for item in received { say("received \(item.url.absoluteString)") }
}

do {
    let arguments = Array(CommandLine.arguments.dropFirst())
    switch arguments.first {
    case "launch":
        report(try NotesLibrary().receiveShares())
        say("notes \(try NotesLibrary().notes().count)")
        say("last shared \(NotesSettings()?.lastSharedURL?.absoluteString ?? "none")")
    case "run":
        let wanted = arguments.count == 3 && arguments[1] == "--count" ? Int(arguments[2]) ?? 1 : 1
        let done = DispatchSemaphore(value: 0)
        let total = LockedCount()
        let receiver = try ShareReceiver { outcome in
            switch outcome {
            case let .success(items):
                report(items)
                if total.add(items.count) >= wanted { done.signal() }
            case let .failure(error):
                FileHandle.standardError.write(Data("NotesApp: \(error)\n".utf8))
            }
        }
        receiver.start()
        say("ready")
        done.wait()
        receiver.stop()
    case "sign-in" where arguments.count == 2:
        try SessionStore.publish(token: arguments[1])
        say("signed in")
    default:
        FileHandle.standardError.write(Data("usage: NotesApp launch | run [--count N] | sign-in TOKEN\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("NotesApp: \(error)\n".utf8))
    exit(1)
}

/// The number of notes received so far, from the receiver's queue.
final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add(_ count: Int) -> Int { lock.withLock { value += count; return value } }
}
