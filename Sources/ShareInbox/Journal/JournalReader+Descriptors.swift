import AppGroupContainer
import Foundation

// The journal reader's descriptors: logs and cursors are kept open while there is
// room, within a share of the process's descriptor limit, and reopened by name
// (their inode checked) when they were closed to make room. Running out anyway
// (the app's own descriptors) closes the reader's and tries once more; failing
// again defers the log, never takes it for damage.
extension JournalReader {
    /// The descriptors a reader may hold: a quarter of the process's soft
    /// RLIMIT_NOFILE (the app and the drain's other files need the rest), at least
    /// 8 and at most 128 (64 logs with their cursors).
    static func descriptorLimit() -> Int {
        let soft = FileOperations.openFileLimit()
        return Int(max(8, min(128, soft / 4)))
    }

    /// Notes a descriptor opened for `name`, closing older ones past the limit.
    func noteOpened(_ name: String) {
        openDescriptors += 1
        openOrder.append(name)
        makeRoom(keeping: name)
    }

    /// Runs `body`, which opens a descriptor for `name`; when the process is out of
    /// descriptors, closes every other one this reader holds and tries once more.
    func opening<T>(_ name: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            if InboxFailure.isOutOfDescriptors(error) {
                for other in Array(logs.keys) where other != name { closeDescriptors(of: other) }
                return try body()
            } else {
                throw error
            }
        }
    }

    /// The log's descriptor, reopened by name when it was closed to make room; nil
    /// when the log is deferred, gone, or its name now names another file (then it
    /// is forgotten), or when it cannot be opened now (then it is deferred).
    func file(of name: String) -> OpenFile? {
        guard let log = logs[name], !log.deferred else { return nil }
        if let file = log.file { return file }
        let file: OpenFile
        do {
            guard let opened = try opening(name, { try journal.openExistingFile(name) }) else { forget(name); return nil }
            file = opened
        } catch where InboxFailure.isWrongKind(error) {
            // Replaced by something else since: the next listing sets that aside.
            forget(name)
            return nil
        } catch {
            deferLog(name, because: "it cannot be opened again (\(error))")
            return nil
        }
        guard let identity = try? file.currentIdentity(), identity.device == log.device, identity.inode == log.inode else {
            file.close()
            forget(name)
            return nil
        }
        logs[name]?.file = file
        noteOpened(name)
        return file
    }

    /// Closes the oldest descriptors (not `kept`'s) until the reader holds no more
    /// than ``descriptorLimit()``.
    func makeRoom(keeping kept: String) {
        while openDescriptors > descriptorLimit && openOrderStart < openOrder.count {
            let name = openOrder[openOrderStart]
            openOrderStart += 1
            if name != kept { closeDescriptors(of: name) }
        }
        if openOrderStart > 4096 && openOrderStart * 2 > openOrder.count {
            openOrder.removeFirst(openOrderStart)
            openOrderStart = 0
        }
    }

    /// Closes the log's descriptors (its cursor fsynced first when written since).
    func closeDescriptors(of name: String) {
        guard let log = logs[name] else { return }
        if let file = log.file {
            file.close()
            openDescriptors -= 1
        }
        if let cursor = log.cursorFile {
            if log.cursorDirty && inbox.durable { try? cursor.sync() }
            cursor.close()
            openDescriptors -= 1
        }
        logs[name]?.file = nil
        logs[name]?.cursorFile = nil
        logs[name]?.cursorDirty = false
    }

    /// Stops following a log that left `Journal/` (or whose name names another file).
    func forget(_ name: String) {
        closeDescriptors(of: name)
        dropHead(name)
        logs[name] = nil
    }
}
