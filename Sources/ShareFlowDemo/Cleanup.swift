import AppGroupContainer
import AppGroupSimulation
import Dispatch
import Foundation

/// What the scenario leaves behind when it is stopped early: Ctrl-C (SIGINT),
/// SIGTERM, SIGHUP, or a reader of its output gone away (EPIPE). The child
/// processes it started are killed and waited for, then the temporary folder is
/// removed, then the process ends as the signal would have ended it (so a shell
/// still sees "interrupted", status 128 + signal).
enum Cleanup {
    private static let lock = NSLock()
    // Guarded by `lock`.
    nonisolated(unsafe) private static var folder: URL?
    nonisolated(unsafe) private static var children: [LaunchedProcess] = []
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// The signals that end a run early.
    static let stopSignals = [SIGINT, SIGTERM, SIGHUP]

    /// From now on, a stop signal or a closed output pipe kills the children and
    /// removes `folder` (nil: one kept on purpose) before the process ends.
    static func removeOnStop(_ folder: URL?) {
        lock.withLock { self.folder = folder }
        // Handled on a queue, not in a signal handler: removing a tree is not async-signal-safe.
        for number in stopSignals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { terminate(number) }
            source.resume()
            lock.withLock { sources.append(source) }
        }
        // A closed pipe then shows as EPIPE in Output, which cleans up.
        signal(SIGPIPE, SIG_IGN)
    }

    /// The folder was removed in the normal way: nothing left to clean.
    static func forgetFolder() { lock.withLock { folder = nil } }

    /// Starts a child the cleanup kills if the run is stopped.
    static func launch(_ executable: URL, _ arguments: [String], environment: [String: String]) throws -> LaunchedProcess {
        try lock.withLock {
            let process = try LaunchedProcess(executable: executable, arguments: arguments, environment: environment)
            children.append(process)
            return process
        }
    }

    /// Kills the children, removes the folder and ends the process by `number`.
    static func terminate(_ number: Int32) -> Never {
        lock.lock() // kept: the process ends here, and a second stop waits for this one
        for child in children { child.kill(SIGKILL) }
        for child in children { _ = child.wait(timeout: 10) }
        if let folder { try? FileOperations.removeTree(folder.path, maximumDepth: 64) }
        signal(number, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, number)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(number)
        exit(128 + number)
    }
}
