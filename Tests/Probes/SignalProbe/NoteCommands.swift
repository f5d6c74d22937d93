// Linux only: on Darwin these names are Apple's own and would reach the real
// group containers and notify center (DarwinGuaranteeTests).
#if !canImport(Darwin)
import Foundation
import AppGroupFoundation // on iOS: nothing more than Foundation
import ProbeSupport

// A note shared by an app and its extension, as iOS code shares one: the
// extension saves it under a coordinated write and posts a Darwin notification;
// the app, woken by it, reloads it under a coordinated read. `--post-first yes`
// is the ordering bug (the notice goes out before the save, "so that the app
// starts sooner"): the app may read the old note. An ordinary run shows it when
// the app's read lock happens to come before the extension's write lock (about
// half the runs here); an exploring device chooses that order on a schedule its
// seed names (SignalExplorationTests, the trace and exploration articles).
enum NoteCommands {
    static let didChange = "com.example.notes.didChange"

    /// `note-extension --file F --text T --post-first yes|no`: saves T into F and posts; prints "saved".
    static func save() {
        let url = URL(fileURLWithPath: option("file"))
        let text = option("text")
        if option("post-first") == "yes" { post() }
        var error: NSError?
        NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: url, options: [], error: &error) { url in
            do { try Data(text.utf8).write(to: url, options: .atomic) } catch { fail("note-extension: \(error)") }
        }
        if let error { fail("note-extension: \(error)") }
        if option("post-first") != "yes" { post() }
        say("saved")
    }

    private static func post() {
        CFNotificationCenterPostNotification(CFNotificationCenterGetDarwinNotifyCenter(), CFNotificationName(didChange as CFString),
                                             nil, nil, true)
    }

    /// `note-app --file F [--seconds S]`: reads F, prints "note <note>" and "ready", then on
    /// the first notice reads it again, prints "read <note>" and exits 0 inside the
    /// observer (exit 3 when no notice came within S seconds).
    static func observe() -> Never {
        let initial = read(URL(fileURLWithPath: option("file")))
        let callback: CFNotificationCallback = { _, _, _, _, _ in
            say("read \(NoteCommands.read(URL(fileURLWithPath: option("file"))))")
            exit(0)
        }
        CFNotificationCenterAddObserver(CFNotificationCenterGetDarwinNotifyCenter(), nil, callback, didChange as CFString, nil,
                                        .deliverImmediately)
        say("note \(initial)")
        say("ready")
        let seconds = Double(option("seconds", "60")) ?? 60
        DispatchQueue.main.asyncAfter(deadline: .now() + seconds) { say("no notice"); exit(3) }
        RunLoop.main.run(until: Date().addingTimeInterval(seconds + 1))
        exit(3)
    }

    /// The note under a coordinated read ("" when there is none).
    static func read(_ url: URL) -> String {
        var error: NSError?
        var text = ""
        NSFileCoordinator(filePresenter: nil).coordinate(readingItemAt: url, options: [], error: &error) { url in
            text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        }
        if let error { fail("note-app: \(error)") }
        return text
    }
}
#endif
