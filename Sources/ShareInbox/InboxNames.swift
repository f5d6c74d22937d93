import AppGroupContainer
import Foundation

/// Validation of the names that become path components inside an inbox (the
/// inbox's own name, attachment names), and of the fields stored in an item.
/// Nothing built from input may leave the inbox directory.
enum InboxNames {
    /// Throws unless `name` is one safe path component: not empty, at most 255
    /// bytes, no "/", no NUL or other control character, not "." or "..", and not
    /// starting with "." (those names are the inbox's own bookkeeping).
    ///
    /// Every comparison is of UTF-8 bytes, as the file system compares names:
    /// Swift's `String` equality would call "caf\u{E9}" and "cafe\u{301}" one name,
    /// and ".\u{301}x" a name that does not start with ".".
    static func validateComponent(_ name: String, field: String) throws(ShareInboxError) {
        let bytes = Array(name.utf8)
        let problem: String?
        if bytes.isEmpty {
            problem = "the name is empty"
        } else if bytes.count > 255 {
            problem = "the name is \(bytes.count) bytes, more than the 255 a file name may have"
        } else if bytes.contains(0) {
            problem = "the name \(AppGroupError.quote(name)) contains a NUL byte"
        } else if bytes.contains(0x2F) {
            problem = "the name \(AppGroupError.quote(name)) contains '/': give a single file name, not a path (\"../\" would leave the inbox)"
        } else if bytes == [0x2E] || bytes == [0x2E, 0x2E] {
            problem = "\(AppGroupError.quote(name)) names a directory, not a file"
        } else if bytes.first == 0x2E {
            problem = "the name \(AppGroupError.quote(name)) starts with '.', which the inbox reserves for its own files; rename it"
        } else if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            problem = "the name \(AppGroupError.quote(name)) contains a control character"
        } else if bytes.elementsEqual(ShareInbox.recordFileName.utf8) {
            problem = "\(ShareInbox.recordFileName) is the name of the item's own record; rename the attachment"
        } else {
            problem = nil
        }
        if let problem { throw ShareInboxError.invalidInboxItem(field: field, problem: problem) }
    }

    /// Throws unless `text` is at most `limit` UTF-8 bytes and free of NUL.
    static func validateText(_ text: String, field: String, limit: Int) throws {
        if text.utf8.count > limit {
            throw ShareInboxError.invalidInboxItem(field: field, problem: "\(text.utf8.count) bytes, more than the \(limit) allowed; put large content in an attachment")
        }
        if text.utf8.contains(0) {
            throw ShareInboxError.invalidInboxItem(field: field, problem: "contains a NUL byte")
        }
    }

    /// The directory name of sequence number `n`: 20 digits, so that names sort
    /// as numbers do.
    static func itemName(_ n: UInt64) -> String {
        // Digits written into 20 bytes from the end: String(repeating:) and a
        // concatenation weighed on every enqueue (it makes three names).
        String(unsafeUninitializedCapacity: 20) { buffer in
            var value = n
            for index in stride(from: 19, through: 0, by: -1) {
                buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
            return 20
        }
    }

    /// The sequence number an item directory name stands for; nil for any other name.
    static func sequenceNumber(_ name: String) -> UInt64? {
        guard name.utf8.count == 20, name.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return UInt64(name)
    }

    /// What a delivered item's claim is renamed to before it is removed: the
    /// record that it was delivered, so that a drain killed while removing it
    /// leaves a leftover recognisably finished (removed silently, never delivered
    /// again, never taken for a damaged item).
    static func deliveredName(_ n: UInt64) -> String { itemName(n) + deliveredSuffix }

    /// The number of a delivered item's name (see ``deliveredName(_:)``); nil for any other name.
    static func deliveredNumber(_ name: String) -> UInt64? {
        guard name.utf8.count == 20 + deliveredSuffix.utf8.count, name.utf8.dropFirst(20).elementsEqual(deliveredSuffix.utf8) else { return nil }
        return sequenceNumber(String(decoding: name.utf8.prefix(20), as: UTF8.self))
    }

    static let deliveredSuffix = ".delivered"

    /// The prefix of an item being written in `Items/` (`.tmp-<pid>-<random>`): hidden,
    /// so no drainer, count or scan of numbers ever takes it for an item.
    static let temporaryPrefix = ".tmp-"

    /// True for a name made with ``temporaryPrefix`` (byte comparison).
    static func isTemporary(_ name: String) -> Bool { name.utf8.starts(with: temporaryPrefix.utf8) }

    /// True when `name` starts with "." (byte comparison).
    static func isHidden(_ name: String) -> Bool { name.utf8.first == 0x2E }
}
