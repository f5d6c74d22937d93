import AppGroupContainer
import Foundation

// Moving a log's cursor. A cursor is opened (made, and written whole, when the
// log has none) before the item it will pass is handed to the handler, so that
// recording the delivery afterwards is one pwrite over blocks the cursor already
// has: it needs no descriptor (EMFILE) and no free space (ENOSPC), the two ways a
// delivery recorded too late would come again.
extension JournalReader {
    /// Opens the log's cursor file for writing, making it (written whole with
    /// where the log stands) when missing or empty. False, and the log deferred for
    /// this drain, when that cannot be done now (no descriptor, no space...).
    func prepareCursor(_ name: String) -> Bool {
        guard let log = logs[name], !log.deferred else { return false }
        do {
            try openCursor(name)
            return true
        } catch {
            deferLog(name, because: "its cursor \(JournalCursor.name(forLog: log.name)) cannot be opened or written now (\(error)), "
                     + "so a delivery could not be recorded; free space or descriptors")
            return false
        }
    }

    /// ``prepareCursor(_:)``, throwing what failed.
    private func openCursor(_ name: String) throws {
        guard let log = logs[name], log.cursorFile == nil else { return }
        let cursorName = JournalCursor.name(forLog: name)
        let cursor: OpenFile
        do {
            cursor = try opening(name, { try journal.openOrCreateFile(cursorName) })
        } catch {
            if InboxFailure.isWrongKind(error) {
                // A link, a FIFO or a directory where the cursor belongs: set aside, a real one made.
                setAside(cursorName, because: "it is not a regular file (\(error))")
                cursor = try opening(name, { try journal.openOrCreateFile(cursorName) })
            } else {
                throw error
            }
        }
        if cursor.size < Int64(JournalCursor.size) {
            do {
                try cursor.write(JournalCursor.encode(offset: log.cursor, device: log.device, inode: log.inode), at: 0)
            } catch {
                cursor.close()
                throw error
            }
            createdCursors = true
        }
        logs[name]?.cursorFile = cursor
        noteOpened(name)
    }

    /// Moves the log's cursor to `offset` (pwrite in place). The cursor must have
    /// been prepared (``prepareCursor(_:)``); if it was closed since, it is opened
    /// again, and when that fails the error is thrown: the move did not happen.
    func setCursor(_ name: String, to offset: Int64) throws {
        try openCursor(name)
        guard let log = logs[name], let cursor = log.cursorFile else { return }
        try cursor.write(JournalCursor.encode(offset: offset, device: log.device, inode: log.inode), at: 0)
        logs[name]?.cursor = offset
        logs[name]?.cursorDirty = true
    }

    /// fsyncs the cursors written since the last call (and `Journal/` when one was created).
    func syncCursors() throws {
        guard inbox.durable else { return }
        for (name, log) in logs where log.cursorDirty {
            try log.cursorFile?.sync()
            logs[name]?.cursorDirty = false
        }
        if createdCursors {
            try journal.sync()
            createdCursors = false
        }
    }
}
