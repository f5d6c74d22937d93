import Foundation

/// The inbox's sequence file: `<boot-id> <last number>`. Numbers are given out
/// under the file's coordination lock, in the same step as the publishing rename,
/// so they follow the order of publication.
///
/// Why no fsync: within one boot every process sees the page cache, so an update
/// that was not flushed is still seen by the next enqueue, even after a SIGKILL.
/// Only a power loss can roll it back, and that changes the boot id: a number
/// stamped with another boot id is not trusted, and the highest number on disk is
/// found by one scan instead.
extension ShareInbox {
    /// Publishes the staged item at `staging` under the next sequence number and
    /// returns that number.
    func publish(staging: URL) throws -> UInt64 {
        let coordinator = FileCoordinator()
        return try coordinator.coordinate(writingItemAt: sequenceFile, options: .forMerging) { file in
            let boot = Self.bootIdentifier
            let stored = Self.readSequence(file)
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
                let target = itemsDirectory.appendingPathComponent(InboxNames.itemName(next), isDirectory: true)
                do {
                    try Sys.rename(staging.path, to: target.path)
                    last = next
                    break
                } catch AppGroupError.systemCall(_, _, let code) where Sys.isDirectoryNotEmpty(code) {
                    // The file said less than what is on disk (edited, restored from a
                    // backup...): trust the disk from now on.
                    last = max(next, try highestSequenceOnDisk())
                    trusted = false
                }
            }
            let text = "\(boot ?? "unknown-boot") \(last)\n"
            do {
                try AtomicFile.write(Data(text.utf8), to: file, durable: durable && !trusted)
            } catch {
                // The item is published; the next enqueue finds the collision and rescans.
                Diagnostics.warn("share inbox \(directory.path): item \(last) was published but the sequence file could not be saved: \(error)")
            }
            return last
        }
    }

    /// The last number given out, as the sequence file says (no lock: the file is
    /// replaced atomically). Zero when none.
    func lastPublishedSequence() -> UInt64 {
        Self.readSequence(sequenceFile)?.number ?? 0
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

    static func readSequence(_ file: URL) -> (boot: String, number: UInt64)? {
        guard let data = try? AtomicFile.read(file, limit: 4096) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
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
