import Foundation

extension ShareInbox {
    /// Puts back the items of drains whose process died mid-handler: a claim
    /// directory whose lock nobody holds belongs to a dead drain. Returns how many
    /// items went back. ``drain(maximumCount:_:)`` calls this first.
    @discardableResult
    public func recoverAbandonedClaims() throws -> Int {
        var sessions: [String] = []
        try Sys.forEachEntry(in: claimsDirectory.path) { name in
            if !name.hasPrefix("."), name != session { sessions.append(name) }
        }
        var recovered = 0
        let tryOnce = FileCoordinator(timeout: 0)
        for name in sessions {
            let sessionDirectory = claimsDirectory.appendingPathComponent(name, isDirectory: true)
            do {
                try tryOnce.coordinate(writingItemAt: sessionDirectory) { _ in
                    var claimed: [String] = []
                    let existed = try Sys.forEachEntry(in: sessionDirectory.path) { claimed.append($0) }
                    for item in claimed {
                        let from = sessionDirectory.appendingPathComponent(item).path
                        if InboxNames.sequenceNumber(item) != nil {
                            try Sys.rename(from, to: itemsDirectory.appendingPathComponent(item).path)
                            recovered += 1
                        } else {
                            let aside = quarantineDirectory.appendingPathComponent(name + "-" + item).path
                            try Sys.rename(from, to: aside)
                            Diagnostics.warn("share inbox \(directory.path): unexpected \(from) moved to \(aside)")
                        }
                    }
                    if existed { try Sys.rmdir(sessionDirectory.path) }
                    if durable { try AtomicFile.syncDirectory(itemsDirectory.path) }
                    let lock = try FileCoordinator.lockFileURL(for: sessionDirectory)
                    try Sys.unlink(lock.path)
                }
            } catch AppGroupError.coordinationTimedOut {
                continue // that drain is alive
            }
        }
        return recovered
    }

    /// Removes staging directories older than `age` seconds: enqueues that died
    /// before publishing. A directory is first renamed aside, so a slow writer that
    /// is still alive fails to publish (its enqueue throws) rather than publishing a
    /// directory being emptied. Returns how many were removed.
    @discardableResult
    public func removeStaleStaging(olderThan age: TimeInterval) -> Int {
        var names: [String] = []
        _ = try? Sys.forEachEntry(in: stagingDirectory.path) { names.append($0) }
        let now = Date().timeIntervalSince1970
        var removed = 0
        for name in names {
            let path = stagingDirectory.appendingPathComponent(name).path
            if name.hasPrefix(".dead-") {
                // A cleaner died halfway: finish its work.
                if (try? Self.removeTree(path)) != nil { removed += 1 }
                continue
            }
            guard let st = try? Sys.lstat(path) else { continue }
            #if canImport(Darwin)
            let modified = Double(st.st_mtimespec.tv_sec) + Double(st.st_mtimespec.tv_nsec) / 1e9
            #else
            let modified = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
            #endif
            guard now - modified >= age else { continue }
            let dead = stagingDirectory.appendingPathComponent(".dead-" + name).path
            guard (try? Sys.rename(path, to: dead)) != nil else { continue }
            if (try? Self.removeTree(dead)) != nil { removed += 1 }
        }
        return removed
    }
}
