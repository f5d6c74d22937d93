import AppGroupContainer
import Foundation

/// The inbox's own entries (`Quarantine/`, `Items/`, `Staging/`, `Claims/`,
/// `Journal/`, the `Sequence` file) and what is done when something else stands at
/// one of those names: a file, a symbolic link, a FIFO, a socket planted there is
/// moved into `Quarantine/` (never followed, never opened), with a warning, and the
/// entry is made again. Refusing instead would stop every enqueue and every drain
/// for good. A directory of another user is still refused
/// (`AppGroupError.untrustedDirectory`): whoever owns it could plant items.
///
/// Opening the inbox (``ShareInbox/init(directory:durable:senderBundleIdentifier:readableDirectories:)``)
/// and each drain make the whole layout; an enqueue repairs what it meets.
extension ShareInbox {
    /// The inbox's directories, Quarantine/ first: the others are set aside into it.
    static let layoutDirectories = ["Quarantine", "Items", "Staging", "Claims", "Journal"]

    /// The prefix of something planted as `Quarantine` while it is moved into the
    /// new `Quarantine/` (it cannot go into itself): a leftover of a process killed
    /// in between is moved in by the next ``prepareLayout()``.
    static let asidePrefix = ".aside-"

    /// Makes every directory of the inbox and checks the Sequence file's kind,
    /// setting aside whatever stands where one of them belongs.
    func prepareLayout() throws {
        for name in Self.layoutDirectories { try repairDirectory(name) }
        try repairSequenceFile()
        var leftovers: [String] = []
        try FileOperations.forEachEntry(in: directory.path) { name in
            if name.utf8.starts(with: Self.asidePrefix.utf8) { leftovers.append(name) }
        }
        for name in leftovers {
            _ = try? setAside(directory.appendingPathComponent(name).path, label: "inbox-Quarantine", what: "something planted as Quarantine")
        }
    }

    /// Makes the directory `name` of the inbox (mode 0700), first moving to
    /// `Quarantine/` anything else standing there.
    func repairDirectory(_ name: String) throws {
        let path = directory.appendingPathComponent(name).path
        for _ in 0..<4 {
            do {
                try TrustedDirectory.make(path)
                return
            } catch {
                if InboxFailure.isWrongKind(error) {
                    guard let status = try FileOperations.status(path), !status.isDirectory else { continue } // gone or made meanwhile
                    if name == "Quarantine" {
                        // Renamed beside, the directory made, then moved into it.
                        let beside = directory.appendingPathComponent(Self.asidePrefix + "Quarantine-" + JournalWriter.hex16(UInt64.random(in: 0...UInt64.max))).path
                        do {
                            try FileOperations.moveWithoutReplacing(path, to: beside)
                        } catch {
                            guard FileOperations.isMissing(error) else { throw error }
                            continue
                        }
                        try TrustedDirectory.make(path)
                        try setAside(beside, label: "inbox-Quarantine", what: "a \(status.kind) that stood where the inbox's Quarantine/ belongs")
                    } else {
                        try setAside(path, label: "inbox-" + name, what: "a \(status.kind) that stood where the inbox's \(name)/ belongs")
                    }
                } else {
                    throw error
                }
            }
        }
        try TrustedDirectory.make(path)
    }

    /// Moves anything but a regular file standing at `Sequence` to `Quarantine/`
    /// (the next enqueue makes the file again, and, its number lost, takes the
    /// highest number on disk).
    func repairSequenceFile() throws {
        guard let found = try FileOperations.kind(at: sequenceFile.path), !found.isRegular else { return }
        try setAside(sequenceFile.path, label: "inbox-Sequence", what: "a \(found.kind) that stood where the inbox's Sequence file belongs")
    }

    /// Throws unless `Items/`, `Staging/`... (`name`) is a directory now, repairing
    /// it first when something else stands there: for the steps that go by path.
    func requireLayoutDirectory(_ name: String) throws {
        let path = directory.appendingPathComponent(name).path
        if let status = try FileOperations.status(path), status.isDirectory { return }
        try repairDirectory(name)
    }

    /// Moves `path` to `Quarantine/` with a warning; nothing when it is gone
    /// already (another process set it aside first).
    private func setAside(_ path: String, label: String, what: String) throws {
        do {
            let aside = try moveToQuarantine(path, label: label)
            Diagnostics.warn("share inbox \(directory.path): \(what) was moved to \(aside), not followed, and the entry made again. "
                             + "Do not create files in the inbox by hand")
        } catch {
            if FileOperations.isMissing(error) {
                return
            } else {
                throw error
            }
        }
    }
}
