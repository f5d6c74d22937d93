import Foundation
#if !canImport(Darwin)
import AppGroupFoundation // NSFileCoordinator and ProcessInfo.performExpiringActivity on Linux
#endif

/// The widget's refresh of its timeline: a transaction on the database the app
/// shares in the group container (here a coordinated write of `Timeline.json`),
/// which holds a file lock for as long as it works.
///
/// iOS kills a process suspended while it holds a lock on a file of a group
/// container (0xdead10cc), and it may suspend a widget at any moment once it is in
/// the background. ``refresh(workSeconds:)`` is the classic bug: the transaction
/// runs on borrowed time. ``refreshTakingBackgroundTime(workSeconds:)`` is the fix
/// Apple's documentation gives: ask for background time first
/// (`performExpiringActivity` in an extension), so the system waits for the
/// transaction to end before it suspends the process.
public enum TimelineRefresh {
    /// The refresh as first written: the transaction lasts `workSeconds`.
    public static func refresh(workSeconds: Double) throws {
        let file = CoordinatedFile<[String]>(url: try NotesGroup.dataDirectory().appendingPathComponent("Timeline.json"), empty: [])
        try file.update { entries in
            HostProcess.say("in transaction")
            Thread.sleep(forTimeInterval: workSeconds)
            entries.append("refreshed \(Date())")
        }
        HostProcess.say("committed")
    }

    /// The same refresh inside background time: iOS does not suspend the widget
    /// before the activity ends. When the time runs out first, the transaction is
    /// not started (or, started, runs to its end before the activity returns).
    public static func refreshTakingBackgroundTime(workSeconds: Double) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Failure()
        ProcessInfo.processInfo.performExpiringActivity(withReason: "refresh the timeline") { expired in
            guard !expired else { return }
            do { try refresh(workSeconds: workSeconds) } catch { failure.set(error) }
            done.signal()
        }
        done.wait()
        if let error = failure.error { throw error }
    }

    /// The activity's error, handed from its thread to the caller's.
    private final class Failure: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: (any Error)?
        func set(_ error: any Error) { lock.withLock { stored = error } }
        var error: (any Error)? { lock.withLock { stored } }
    }
}
