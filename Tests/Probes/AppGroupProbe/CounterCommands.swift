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
///
/// `--journal J --nested yes|no` also appends a line to J in a coordinated write:
/// `yes` inside the counter's coordinated write (a write lock in the group held
/// while it asks for the next, the fragile point iOS kills with 0xdead10cc when it
/// suspends the process there), `no` after it. `--pick urandom` counts in F or in
/// F-b, as a byte of /dev/urandom says (nondeterminism planted on purpose).
enum CounterCommands {
    static func countUp() {
        var url = URL(fileURLWithPath: option("file"))
        if optionalOption("pick") == "urandom", let byte = FileHandle(forReadingAtPath: "/dev/urandom")?.readData(ofLength: 1).first, byte & 1 == 1 {
            url = URL(fileURLWithPath: url.path + "-b")
        }
        let split = option("split") == "yes"
        let journal = optionalOption("journal").map { URL(fileURLWithPath: $0) }
        let nested = optionalOption("nested") == "yes"
        let coordinator = NSFileCoordinator(filePresenter: nil)
        var error: NSError?
        var old = 0
        if let journal {
            coordinator.coordinate(writingItemAt: url, options: [], error: &error) { url in
                old = read(url)
                write(old + 1, to: url)
                if nested { append("counted \(old + 1)", to: journal, coordinator) }
            }
            if !nested, error == nil { append("counted \(old + 1)", to: journal, coordinator) }
        } else if split {
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

    private static func append(_ line: String, to journal: URL, _ coordinator: NSFileCoordinator) {
        var error: NSError?
        coordinator.coordinate(writingItemAt: journal, options: [], error: &error) { url in
            let old = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
            do { try Data((old + line + "\n").utf8).write(to: url, options: .atomic) } catch { fail("count-up journal: \(error)") }
        }
        if let error { fail("count-up journal: \(error)") }
    }

    private static func read(_ url: URL) -> Int {
        (try? String(contentsOf: url, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
    }

    private static func write(_ value: Int, to url: URL) {
        do { try Data("\(value)\n".utf8).write(to: url, options: .atomic) } catch { fail("count-up: \(error)") }
    }
}
