import Foundation

/// The inbox's sequence file: one line, `<boot-id> <last number>`, rewritten in
/// place (pwrite at offset 0, a fixed 20-digit number) under the file's
/// coordination lock. Numbers are given out under that lock, in the same step as
/// the publishing link or rename, so they follow the order of publication.
///
/// Why no fsync and no atomic save: within one boot every process sees the page
/// cache, so an update not yet flushed is still seen by the next enqueue, even
/// after a SIGKILL (a pwrite happens whole or not at all); an atomic save would
/// create a file per enqueue, inside the lock. Only a power loss can roll the
/// file back or tear it, and that changes the boot id: a line stamped with
/// another boot id (or unreadable) is not trusted, and the highest number on disk
/// is found by one scan instead.
extension ShareInbox {
    /// Publishes the staged item at `staging` under the next sequence number and
    /// returns that number.
    func publish(staging: URL) throws -> UInt64 {
        try FileCoordinator().coordinate(writingItemAt: sequenceFile, options: .forMerging) { file in
            let fd = try Sys.open(file.path, O_RDWR | O_CREAT | O_NOFOLLOW, mode: Sys.fileMode)
            defer { Sys.close(fd) }
            let st = try Sys.fstat(fd, path: file.path)
            guard Sys.isRegular(st) else { throw AppGroupError.notARegularFile(path: file.path, kind: Sys.fileKind(st.st_mode)) }
            if st.st_mode & 0o777 != Sys.fileMode { try Sys.fchmod(fd, Sys.fileMode, path: file.path) }
            let boot = Self.bootIdentifier
            let stored = Self.parseSequence(try Sys.readAll(fd, path: file.path, sizeHint: 64, limit: 4096))
            var last: UInt64
            var trusted = false
            if let stored, let boot, stored.boot == boot {
                last = stored.number
                trusted = true
            } else {
                last = max(stored?.number ?? 0, try highestSequenceOnDisk())
            }
            while true {
                let next = last &+ 1
                let target = itemsDirectory.appendingPathComponent(InboxNames.itemName(next))
                do {
                    try Self.publishName(staging.path, at: target.path)
                    last = next
                    break
                } catch AppGroupError.systemCall(_, _, let code) where Sys.isNameTaken(code) {
                    // The file said less than what is on disk (edited, restored from a
                    // backup...): trust the disk from now on.
                    last = max(next, try highestSequenceOnDisk())
                    trusted = false
                }
            }
            do {
                let line = Data("\(boot ?? "unknown-boot") \(InboxNames.itemName(last))\n".utf8)
                try line.withUnsafeBytes { try Sys.writeAll(fd, $0, at: 0, path: file.path) }
                if durable && !trusted { try Sys.fsync(fd, path: file.path) }
            } catch {
                // The item is published; the next enqueue finds the collision and rescans.
                Diagnostics.warn("share inbox \(directory.path): item \(last) was published but the sequence file could not be saved: \(error)")
            }
            return last
        }
    }

    /// Gives the staged item at `staging` the name `target`, never replacing an
    /// item already there: a directory by rename(2) (which cannot replace a
    /// non-empty directory), a file by link(2) (rename would replace a file
    /// silently); the caller then unlinks the staging name, outside the lock. A
    /// staging link left by a crash in between is removed with the other stale
    /// staging (the published name is a link of its own).
    static func publishName(_ staging: String, at target: String) throws {
        if let st = try Sys.lstat(staging), Sys.isRegular(st) {
            try Sys.link(staging, to: target)
        } else {
            try Sys.rename(staging, to: target)
        }
    }

    /// The last number given out, as the sequence file says (read under the
    /// file's shared lock, so never half-rewritten). Zero when none.
    func lastPublishedSequence() throws -> UInt64 {
        try FileCoordinator().coordinate(readingItemAt: sequenceFile) { file in
            try AtomicFile.read(file, limit: 4096).flatMap(Self.parseSequence)?.number ?? 0
        }
    }

    /// The highest number in `Items/` or in any claim: one pass, constant memory.
    func highestSequenceOnDisk() throws -> UInt64 {
        var highest: UInt64 = 0
        try Sys.forEachEntry(in: itemsDirectory.path) { name in
            if let n = InboxNames.sequenceNumber(name) { highest = max(highest, n) }
        }
        var sessions: [String] = []
        try Sys.forEachEntry(in: claimsDirectory.path) { name in if !name.hasPrefix(".") { sessions.append(name) } }
        for session in sessions {
            try Sys.forEachEntry(in: claimsDirectory.appendingPathComponent(session).path) { name in
                if let n = InboxNames.sequenceNumber(name) { highest = max(highest, n) }
            }
        }
        return highest
    }

    /// The first line's boot id and number; nil when it is not that.
    static func parseSequence(_ data: Data) -> (boot: String, number: UInt64)? {
        let line = data.prefix(while: { $0 != 0x0A })
        let parts = String(decoding: line, as: UTF8.self).split(separator: " ")
        guard parts.count == 2, let number = UInt64(parts[1]) else { return nil }
        return (String(parts[0]), number)
    }

    /// The kernel's boot id (Linux), nil where there is none: then every sequence
    /// update is fsynced instead.
    static let bootIdentifier: String? = {
        #if os(Linux)
        guard let data = try? AtomicFile.read(URL(fileURLWithPath: "/proc/sys/kernel/random/boot_id"), limit: 256) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty || text.contains(" ") ? nil : text
        #else
        return nil
        #endif
    }()
}
