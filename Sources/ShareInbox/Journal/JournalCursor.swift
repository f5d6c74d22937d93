import AppGroupContainer
import Foundation

/// `Journal/<log name without .log>.cursor`: how far a log was delivered. 24
/// bytes, little-endian: the byte offset delivered up to, then the device and
/// inode of the log it belongs to (so a cursor left beside another log of the same
/// name is never believed). The log's writer makes it, whole (offset 0), when it
/// makes the log, so that it holds its blocks from then on: the drain holding the
/// journal's consumer lock rewrites it in place with pwrite, which then needs no
/// new block, even on a full disk (a cursor missing, from an older writer, is made
/// by the drain before it delivers from that log). Fsynced in batches.
///
/// A cursor that cannot be believed (not 24 bytes, another log's, past the log's
/// end, not a regular file) counts as 0 with a warning: the log is delivered
/// again from its start. Redelivery, not loss: an app sees an item twice at
/// worst, and a handler that must not repeat can check ``ReceivedItem/sequenceNumber``.
/// A cursor that cannot be read now (out of descriptors, an I/O error) is no
/// reason to believe anything: the error is thrown and the log waits.
enum JournalCursor {
    static let size = 24
    static let suffix = ".cursor"
    static let logSuffix = ".log"

    /// The cursor's name for the log `logName` (`x.log` gives `x.cursor`).
    static func name(forLog logName: String) -> String {
        String(decoding: logName.utf8.dropLast(logSuffix.utf8.count), as: UTF8.self) + suffix
    }

    /// True for a log's name: `<something>.log`, not hidden.
    static func isLogName(_ name: String) -> Bool {
        name.utf8.count > logSuffix.utf8.count && !InboxNames.isHidden(name) && name.utf8.reversed().starts(with: logSuffix.utf8.reversed())
    }

    /// True for a cursor's name: `<something>.cursor`, not hidden.
    static func isCursorName(_ name: String) -> Bool {
        name.utf8.count > suffix.utf8.count && !InboxNames.isHidden(name) && name.utf8.reversed().starts(with: suffix.utf8.reversed())
    }

    static func encode(offset: Int64, device: UInt64, inode: UInt64) -> Data {
        // One fixed buffer: written at every delivery.
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt64(offset).littleEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: device.littleEndian, toByteOffset: 8, as: UInt64.self)
            raw.storeBytes(of: inode.littleEndian, toByteOffset: 16, as: UInt64.self)
        }
        return Data(bytes)
    }

    /// Where delivery of the log (`device`, `inode`, `end` bytes now) stands as its
    /// cursor file in `journal` says: 0 when there is none, or when it is empty
    /// (made and never written); 0 with a warning when it cannot be believed.
    /// Read-only.
    /// - Throws: when the cursor cannot be read now (EMFILE, EIO...): nothing is
    ///   known of it, so nothing is assumed.
    static func read(forLog logName: String, in journal: DirectoryHandle, device: UInt64, inode: UInt64, end: Int64, inbox: String) throws -> Int64 {
        let name = name(forLog: logName)
        let data: Data
        do {
            guard let file = try journal.openExistingFile(name) else { return 0 }
            defer { file.close() }
            data = try file.read(size + 1, at: 0)
        } catch {
            if !InboxFailure.isTransient(error) {
                // Not a regular file, another user's...: nothing in it can be believed.
                warn(inbox, journal.path + "/" + name, "cannot be read (\(error))")
                return 0
            } else {
                throw error
            }
        }
        if data.isEmpty { return 0 }
        guard data.count == size else {
            warn(inbox, journal.path + "/" + name, "is \(data.count == size + 1 ? "longer" : "\(data.count) bytes"), not the \(size) bytes of a cursor")
            return 0
        }
        let offset = UInt64(littleEndianBytes: data, at: data.startIndex)
        let cursorDevice = UInt64(littleEndianBytes: data, at: data.startIndex + 8)
        let cursorInode = UInt64(littleEndianBytes: data, at: data.startIndex + 16)
        guard cursorDevice == device, cursorInode == inode else {
            warn(inbox, journal.path + "/" + name, "belongs to another file (inode \(cursorInode), the log is inode \(inode))")
            return 0
        }
        guard offset <= UInt64(end) else {
            warn(inbox, journal.path + "/" + name, "says \(offset) bytes were delivered, past the log's end (\(end) bytes)")
            return 0
        }
        return Int64(offset)
    }

    /// Makes the cursor of the new log `logName` (device, inode) in `journal`,
    /// written whole at offset 0, so that its blocks are taken now. Best effort:
    /// a cursor that cannot be made (a full disk) is made by the drain later.
    static func create(forLog logName: String, in journal: DirectoryHandle, device: UInt64, inode: UInt64) {
        let name = name(forLog: logName)
        guard let file = try? journal.createAppendOnlyFile(name) else { return }
        defer { file.close() }
        do {
            try file.write(encode(offset: 0, device: device, inode: inode))
        } catch {
            _ = try? journal.remove(name, durable: false)
        }
    }

    private static func warn(_ inbox: String, _ path: String, _ problem: String) {
        Diagnostics.warn("share inbox \(inbox): the journal cursor \(path) \(problem); its log is read from the start, "
                         + "so items already delivered from it may be delivered again (redelivery rather than loss). "
                         + "Do not edit files in Journal/ by hand")
    }
}
