import AppGroupContainer
import Foundation

extension ShareInbox {
    /// Puts back the items of drains whose process died mid-handler: a claim
    /// directory whose lock nobody holds belongs to a dead drain. Returns how many
    /// items went back. ``drain(maximumCount:_:)`` calls this first.
    ///
    /// An item goes back under its number without replacing anything (if the
    /// number is taken, under a fresh one, with a warning); an item already
    /// delivered (`<n>.delivered`) is removed, or quarantined when it cannot be.
    /// The dead session's lock file goes too, also when its directory is already
    /// gone (a drain killed just before making it or just after removing it):
    /// only that session and these recoveries ever open it, and a drain whose
    /// lock file was unlinked under it notices and opens a new one (FileLock's
    /// check after locking), so removing it races with no one.
    /// An entry that cannot be handled is left in place with a warning; it never
    /// stops the drain.
    @discardableResult
    public func recoverAbandonedClaims() throws -> Int {
        try ShareInboxError.passingUp { try recoverClaims() }
    }

    /// ``recoverAbandonedClaims()``'s work (every drain does it first).
    func recoverClaims() throws -> Int {
        var sessions: [String] = []
        var seen = Set<[UInt8]>()
        try FileOperations.forEachEntry(in: claimsDirectory.path) { name in
            let candidate: String
            if InboxNames.isHidden(name) {
                // `.<session>.lock`: a session's lock file, maybe without its directory.
                guard name.utf8.count > 6, name.utf8.suffix(5).elementsEqual(".lock".utf8) else { return }
                candidate = String(decoding: name.utf8.dropFirst().dropLast(5), as: UTF8.self)
                let url = claimsDirectory.appendingPathComponent(candidate, isDirectory: true)
                guard (try? claimsCoordinator.lockFile(for: url).lastPathComponent.utf8.elementsEqual(name.utf8)) == true else { return }
            } else {
                candidate = name
            }
            guard !candidate.utf8.elementsEqual(session.utf8), seen.insert(Array(candidate.utf8)).inserted else { return }
            sessions.append(candidate)
        }
        var recovered = 0
        // Not an ordinary coordination: from inside a drain's handler that one would
        // find the running drain's own lock free (re-entrancy) and take it for dead.
        let probe = claimsCoordinator
        for name in sessions {
            let sessionDirectory = claimsDirectory.appendingPathComponent(name, isDirectory: true)
            do {
                let done: Void? = try probe.coordinateIfUnheld(writingItemAt: sessionDirectory) { _ in
                    if let status = try FileOperations.status(sessionDirectory.path), !status.isDirectory {
                        // Not a drain's directory (planted): set aside, never read.
                        let aside = try moveToQuarantine(sessionDirectory.path, label: "claims-" + name)
                        Diagnostics.warn("share inbox \(directory.path): a \(status.kind) in Claims/ was moved to \(aside)")
                    }
                    let (back, complete) = try recoverEntries(of: sessionDirectory, session: name)
                    recovered += back
                    guard complete else { return }
                    try claimsCoordinator.removeLockFile(for: sessionDirectory)
                }
                if done == nil { continue } // that drain is alive
            } catch {
                // One session that cannot be recovered must not stop every drain.
                Diagnostics.warn("share inbox \(directory.path): the claims of drain \(name), which ended, could not be recovered and stay: \(error)")
            }
        }
        return recovered
    }

    /// Handles what a session directory holds (the caller holds its lock, or it is
    /// this drain's own): items go back, delivered items are removed, anything else
    /// is quarantined; then the directory is removed. Returns how many items went
    /// back, and whether everything was handled and the directory is gone.
    func recoverEntries(of sessionDirectory: URL, session name: String) throws -> (recovered: Int, complete: Bool) {
        var claimed: [String] = []
        guard try FileOperations.forEachEntry(in: sessionDirectory.path, { claimed.append($0) }) else { return (0, true) }
        var recovered = 0
        var complete = true
        for item in claimed {
            let from = sessionDirectory.appendingPathComponent(item).path
            do {
                if let number = InboxNames.sequenceNumber(item) {
                    try putBack(from, number: number)
                    recovered += 1
                } else if let number = InboxNames.deliveredNumber(item) {
                    // Delivered; its removal was cut short: finish it, silently.
                    discardDelivered(from, number: number, session: name)
                } else {
                    let aside = try moveToQuarantine(from, label: name + "-" + item)
                    Diagnostics.warn("share inbox \(directory.path): unexpected \(from) moved to \(aside)")
                }
            } catch {
                // E.g. a name that is not UTF-8, which cannot be named back: it stays.
                complete = false
                Diagnostics.warn("share inbox \(directory.path): \(from), left by a drain that ended, could not be handled and stays: \(error)")
            }
        }
        if durable && recovered > 0 { try FileOperations.syncDirectory(itemsDirectory.path) }
        guard complete, (try? FileOperations.removeDirectory(sessionDirectory.path)) != nil else { return (recovered, false) }
        return (recovered, true)
    }

    /// Removes what enqueues that died before publishing left: hidden item files in
    /// `Items/` (`.tmp-` names) whose writer is gone, at once (a
    /// writer holds its file's lock while it lives, and the kernel drops it when the
    /// writer dies), and staging directories in `Staging/` older than `age` seconds
    /// (a hidden file that cannot be opened and locked goes by age too). A directory
    /// is first renamed aside, so a slow writer that is still alive fails to publish
    /// (its enqueue throws) rather than publishing a directory being emptied. Returns
    /// how many were removed.
    @discardableResult
    public func removeStaleStaging(olderThan age: TimeInterval) -> Int {
        removeDeadTemporaries(olderThan: age) + removeStaleStagingDirectories(olderThan: age)
    }

    /// The hidden item files of ``removeStaleStaging(olderThan:)``, at most
    /// ``staleTemporariesPerPass`` per call (the rest go with the next drains).
    private func removeDeadTemporaries(olderThan age: TimeInterval) -> Int {
        let items = itemsDirectory.path
        var names: [String] = []
        _ = try? FileOperations.forEachEntry(in: items) { name in
            if names.count < Self.staleTemporariesPerPass, InboxNames.isTemporary(name) { names.append(name) }
        }
        let now = Date().timeIntervalSince1970
        return names.filter { name in
            let path = items + "/" + name
            let file: OpenFile
            do {
                file = try OpenFile.openExisting(path)
            } catch where InboxFailure.isTransient(error) {
                // Out of descriptors, an I/O error: nothing is known of it; a later drain looks again.
                return false
            } catch {
                // Not a file this user can lock (planted): by age.
                guard let status = try? FileOperations.status(path), now - status.modified >= age else { return false }
                return (try? FileOperations.removeFile(path)) == true
            }
            defer { file.unlockAndClose() }
            // Held: its writer is alive. Taken: the writer died, or has not locked it
            // yet and will find it gone (it checks after locking), so it is removed
            // before the lock is let go.
            guard (try? file.tryLockExclusively()) == true else { return false }
            return (try? FileOperations.removeFile(path)) == true
        }.count
    }

    static let staleTemporariesPerPass = 1024

    private func removeStaleStagingDirectories(olderThan age: TimeInterval) -> Int {
        var names: [String] = []
        _ = try? FileOperations.forEachEntry(in: stagingDirectory.path) { names.append($0) }
        let now = Date().timeIntervalSince1970
        var removed = 0
        for name in names {
            let path = stagingDirectory.appendingPathComponent(name).path
            if name.utf8.starts(with: ".dead-".utf8) {
                // A cleaner died halfway: finish its work.
                if (try? Self.removeTree(path)) != nil { removed += 1 }
                continue
            }
            guard let status = try? FileOperations.status(path) else { continue }
            guard now - status.modified >= age else { continue }
            let dead = stagingDirectory.appendingPathComponent(".dead-" + name).path
            guard (try? FileOperations.rename(path, to: dead)) != nil else { continue }
            if (try? Self.removeTree(dead)) != nil { removed += 1 }
        }
        return removed
    }
}
