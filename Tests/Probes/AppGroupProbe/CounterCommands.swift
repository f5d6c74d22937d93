import AppGroupContainer
import AppGroupFoundation
import Foundation
import ProbeSupport

/// `count-up --file F --split yes|no`: adds one to the number in F with
/// NSFileCoordinator, as an app and its extension both might. `--split yes` is the
/// bug users write: the read in one coordinated read, the write in another
/// coordinated write, so another process can read between them and one increment
/// is lost. `--split no` reads and writes in one coordinated write. Prints
/// "counted <old> -> <new>". The exploring scheduler's worked example.
enum CounterCommands {
    static func countUp() {
        let url = URL(fileURLWithPath: option("file"))
        let split = option("split") == "yes"
        let coordinator = NSFileCoordinator(filePresenter: nil)
        var error: NSError?
        var old = 0
        if split {
            coordinator.coordinate(readingItemAt: url, options: [], error: &error) { url in old = read(url) }
            if let error { fail("count-up read: \(error)") }
            coordinator.coordinate(writingItemAt: url, options: [], error: &error) { url in write(old + 1, to: url) }
        } else {
            coordinator.coordinate(writingItemAt: url, options: [], error: &error) { url in
                old = read(url)
                write(old + 1, to: url)
            }
        }
        if let error { fail("count-up write: \(error)") }
        say("counted \(old) -> \(old + 1)")
    }

    private static func read(_ url: URL) -> Int {
        (try? String(contentsOf: url, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
    }

    private static func write(_ value: Int, to url: URL) {
        do { try Data("\(value)\n".utf8).write(to: url, options: .atomic) } catch { fail("count-up: \(error)") }
    }
}
