import AppGroupContainer
import Foundation

/// The inbox's sequence file: one line, `<boot-id> <last number>`, rewritten in
/// place (pwrite at offset 0, a fixed 20-digit number) under the file's
/// coordination lock. A number is written here BEFORE an item is published under
/// it, in the same step under that lock, so the file never says less than a
/// number in use: a process killed between the two steps leaves a number unused,
/// never one given out twice. Numbers follow the order of publication.
///
/// Why no fsync on every enqueue and no atomic save: within one boot every process
/// sees the page cache, so an update not yet flushed is still seen by the next
/// enqueue, even after a SIGKILL (a pwrite happens whole or not at all). Only a
/// power loss can roll the file back or tear it, and that changes the boot id: a
/// line stamped with another boot id (or unreadable) is not trusted, and the
/// highest number on disk is found by one scan instead. A drain fsyncs this file
/// before it records an item as delivered (``durableSequence(atLeast:)``), so a
/// number whose item is gone is never below what the file says after a power loss.
extension ShareInbox {
    /// Publishes the staged item at `staging` (a path: a directory in `Staging/`,
    /// or a claim put back) under the next sequence number and returns that number.
    /// - Throws: ``ShareInboxError/inboxSequenceExhausted(sequenceFile:last:)`` when
    ///   the last number was given out; file-system errors (nothing is published).
    func publish(staging: URL) throws -> UInt64 {
        try publishNext(opened: nil) { number in
            // By path, so Items/ must be a directory, not a link to elsewhere:
            // checked (and repaired) just before, under the lock.
            try requireLayoutDirectory("Items")
            try FileOperations.linkOrRename(staging.path, to: itemsDirectory.path + "/" + InboxNames.itemName(number))
        }
    }

    /// Publishes the item `place` gives a name in `Items/` (a name it must never
    /// replace) under the next sequence number; the sequence file is reached through
    /// `inbox`, the descriptor of the walk from the container root this enqueue
    /// made, so nothing is looked up by path again.
    func publish(inbox: DirectoryHandle, place: (String) throws -> Void) throws -> UInt64 {
        try publish(inbox: inbox, placeNumber: { number in try place(InboxNames.itemName(number)) })
    }

    /// Publishes under the next number what `place` writes given that number (a
    /// journal record): the same step under the same lock as an item in `Items/`.
    func publish(inbox: DirectoryHandle, placeNumber place: (UInt64) throws -> Void) throws -> UInt64 {
        // Opened (or the held one checked) before the lock, which then covers only
        // the read, the write and the placing: every enqueue of every process waits
        // for that section.
        let sequence = try heldSequence.file(in: inbox) {
            do {
                return try inbox.openOrCreateFile("Sequence")
            } catch {
                if InboxFailure.isWrongKind(error) {
                    // A directory, a link, a FIFO planted as Sequence: set aside, made again.
                    try repairSequenceFile()
                    return try inbox.openOrCreateFile("Sequence")
                } else {
                    throw error
                }
            }
        }
        return try publishNext(opened: sequence, place: place)
    }

    /// Under the sequence file's lock: stores the next number, then calls `place`
    /// with it (a name in `Items/` made of it must refuse a taken name, see
    /// ``FileOperations/isNameTaken(_:)``), and returns the number. `opened` is the
    /// sequence file reached by descriptor; nil opens it by path, after checking
    /// under the lock that no link stands on the way.
    private func publishNext(opened: OpenFile?, place: (UInt64) throws -> Void) throws -> UInt64 {
        return try FileCoordinator().coordinate(writingItemAt: sequenceFile, options: .forMerging) { file in
            let sequence: OpenFile
            if let opened {
                sequence = opened
            } else {
                // Again under the lock, just before the item becomes visible by path.
                try AtomicFile.requireContainedDirectory(directory, below: root)
                sequence = try openSequenceFile()
            }
            defer { if opened == nil { sequence.close() } }
            var (last, trusted) = try currentLast(sequence)
            while true {
                guard last < UInt64.max else {
                    throw ShareInboxError.inboxSequenceExhausted(sequenceFile: file.path, last: last)
                }
                let next = last + 1
                // The number first: once the item is visible, nothing may hand it out again.
                try storeSequence(next, in: sequence, sync: durable && !trusted)
                do {
                    // The item becomes visible to drains here: a coordinated step of an exploring device.
                    Exploration.step("inbox publish", directory.path)
                    try place(next)
                    return next
                } catch {
                    if FileOperations.isNameTaken(error) {
                        // The file said less than what is on disk (edited, restored from a
                        // backup...): trust the disk from now on.
                        last = max(next, try highestSequenceOnDisk(base: next))
                        trusted = false
                    } else {
                        throw error
                    }
                }
            }
        }
    }

    /// Raises the sequence file to at least `number` (an item found on disk above
    /// what the file says: planted, or left by an older version) and returns what
    /// it says now. With `sync`, the file is fsynced too, whatever it held: a
    /// drain calls this before recording a delivery, so that after a power loss the
    /// file still covers every number whose item is gone.
    @discardableResult
    func durableSequence(atLeast number: UInt64, sync: Bool) throws -> UInt64 {
        let sequence = try openSequenceFile()
        defer { sequence.close() }
        let result = try FileCoordinator().coordinate(writingItemAt: sequenceFile, options: .forMerging) { _ in
            let (last, trusted) = try currentLast(sequence)
            if last < number || !trusted {
                try storeSequence(max(last, number), in: sequence, sync: false)
            }
            return max(last, number)
        }
        // After the lock, which enqueues wait for: the file is only ever rewritten
        // in place with a number at least as high, so whatever this fsync writes
        // covers `result`.
        if sync { try sequence.sync() }
        return result
    }

    /// The last number given out, and whether the file alone can be trusted for
    /// it (written in this boot); otherwise the highest number on disk counts too.
    private func currentLast(_ sequence: OpenFile) throws -> (last: UInt64, trusted: Bool) {
        let stored = Self.parseSequence(sequence.readStart(upTo: Self.sequenceReadLimit))
        if let stored, let boot = Self.bootIdentifier, stored.boot == boot {
            return (stored.number, true)
        }
        let base = stored?.number ?? 0
        return (max(base, try highestSequenceOnDisk(base: base)), false)
    }

    /// The sequence file, opened to read and write (made when missing); something
    /// else planted at its name is set aside and the file made again.
    private func openSequenceFile() throws -> OpenFile {
        do {
            return try OpenFile.openOrCreate(sequenceFile.path)
        } catch {
            if InboxFailure.isWrongKind(error) {
                try repairSequenceFile()
                return try OpenFile.openOrCreate(sequenceFile.path)
            } else {
                throw error
            }
        }
    }

    private func storeSequence(_ number: UInt64, in sequence: OpenFile, sync: Bool) throws {
        let line = Data("\(Self.bootIdentifier ?? "unknown-boot") \(InboxNames.itemName(number))\n".utf8)
        try sequence.write(line, at: 0)
        if sync { try sequence.sync() }
    }

    /// The last number given out, as the sequence file says (read under the
    /// file's shared lock, so never half-rewritten). Zero when none. `body` runs
    /// under the same lock: no enqueue publishes while it runs.
    func lastPublishedSequence(alsoUnderTheLock body: () throws -> Void = {}) throws -> UInt64 {
        try FileCoordinator().coordinate(readingItemAt: sequenceFile) { file in
            try body()
            let sequence: OpenFile
            do {
                sequence = try OpenFile.openForReading(file.path)
            } catch {
                if FileOperations.isMissing(error) || InboxFailure.isWrongKind(error) {
                    // Missing, or not a file (the drain sets that aside): nothing given out as far as it says.
                    return 0
                } else {
                    throw error
                }
            }
            defer { sequence.close() }
            // A read that fails is thrown, not taken for an empty file.
            return Self.parseSequence(try sequence.read(Self.sequenceReadLimit, at: 0))?.number ?? 0
        }
    }

    /// How much of the sequence file is read: only the first line counts, so a
    /// file padded to any length is read in constant time and memory instead of
    /// being refused (which would stop every enqueue and drain).
    static let sequenceReadLimit = 4096

    /// The highest number in `Items/`, in any claim or delivered claim, in
    /// `Quarantine/`, or in a checked journal record: one pass, constant memory.
    /// Numbers not believable with the counter at `base` (see
    /// ``isPlausible(_:after:)``) are left out: planted, they must not end the numbering.
    func highestSequenceOnDisk(base: UInt64) throws -> UInt64 {
        var highest = try JournalScan.highestNumber(of: self, base: base)
        func note(_ name: String) {
            let n = InboxNames.sequenceNumber(name) ?? InboxNames.deliveredNumber(name)
                ?? InboxNames.sequenceNumber(String(decoding: name.utf8.prefix(20), as: UTF8.self))
            if let n, Self.isPlausible(n, after: base) { highest = max(highest, n) }
        }
        try FileOperations.forEachEntry(in: itemsDirectory.path) { note($0) }
        try FileOperations.forEachEntry(in: quarantineDirectory.path) { note($0) }
        var sessions: [String] = []
        try FileOperations.forEachEntry(in: claimsDirectory.path) { name in if !InboxNames.isHidden(name) { sessions.append(name) } }
        for session in sessions {
            let path = claimsDirectory.appendingPathComponent(session).path
            // Only directories (a planted file must not stop every enqueue); one can
            // vanish (its drain ends) while this runs: no error.
            guard let status = try FileOperations.status(path), status.isDirectory else { continue }
            try FileOperations.forEachEntry(in: path) { note($0) }
        }
        return highest
    }

    /// How far above the counter a number found on disk may be and still be
    /// believed: 2^32. Numbers are given out one by one and the counter only lags
    /// what is on disk after a power loss or a restored backup, never by billions;
    /// a number beyond that (a record or an item numbered near UInt64.max) was
    /// planted, and believing it would end the numbering for every writer.
    static let plausibleAdvance: UInt64 = 1 << 32

    /// True when `number`, found on disk, can be one this inbox gave out while its
    /// counter says `base`.
    static func isPlausible(_ number: UInt64, after base: UInt64) -> Bool {
        number <= base || number - base <= plausibleAdvance
    }

    /// The first line's boot id and number; nil when it is not that.
    static func parseSequence(_ data: Data) -> (boot: String, number: UInt64)? {
        // By bytes (a String per line and its split were a fifth of an enqueue):
        // words of the first line separated by runs of spaces, exactly two.
        data.withUnsafeBytes { raw -> (boot: String, number: UInt64)? in
            let bytes = raw.bindMemory(to: UInt8.self)
            let end = bytes.firstIndex(of: 0x0A) ?? bytes.endIndex
            var words: [Range<Int>] = []
            var i = bytes.startIndex
            while i < end {
                if bytes[i] == 0x20 { i += 1; continue }
                let start = i
                while i < end, bytes[i] != 0x20 { i += 1 }
                words.append(start..<i)
                if words.count > 2 { return nil }
            }
            guard words.count == 2,
                  let number = UInt64(String(decoding: UnsafeBufferPointer(rebasing: bytes[words[1]]), as: UTF8.self)) else { return nil }
            return (String(decoding: UnsafeBufferPointer(rebasing: bytes[words[0]]), as: UTF8.self), number)
        }
    }

    /// The kernel's boot id (Linux), nil where there is none: then every sequence
    /// update is fsynced instead.
    static let bootIdentifier: String? = {
        #if os(Linux)
        guard let data = try? AtomicFile.read(URL(fileURLWithPath: "/proc/sys/kernel/random/boot_id"), below: nil, limit: 256) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty || text.contains(" ") ? nil : text
        #else
        return nil
        #endif
    }()
}

