import AppGroupContainer
import Foundation

/// The on-disk record of an item: `item.json` in the item's directory. It is
/// written last, after the attachments, and the directory is published by one
/// rename, so a record always describes files that are complete.
struct ItemRecord: Codable, Sendable, Hashable {
    struct File: Codable, Sendable, Hashable {
        var name: String
        var size: Int64
    }

    var version: Int = 1
    var url: String?
    var title: String?
    var kind: String
    var date: Double
    var sender: String?
    var attachments: [File]

    /// Largest record accepted when reading one back.
    static let readLimit: Int64 = 1 << 20

    /// Validates `item` (everything but the attachment sources, checked when opened).
    init(validating item: SharedItem, sender: String?) throws {
        if let url = item.url {
            try InboxNames.validateText(url.absoluteString, field: "url", limit: SharedItem.Limits.urlBytes)
        }
        if let title = item.title {
            try InboxNames.validateText(title, field: "title", limit: SharedItem.Limits.titleBytes)
        }
        try InboxNames.validateText(item.kind, field: "kind", limit: SharedItem.Limits.kindBytes)
        if item.kind.isEmpty || !item.kind.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2E || $0 == 0x2D }) {
            throw ShareInboxError.invalidInboxItem(field: "kind", problem: "\(AppGroupError.quote(item.kind)) is not a uniform type identifier (letters, digits, '.' and '-', e.g. public.url)")
        }
        guard item.date.timeIntervalSince1970.isFinite else {
            throw ShareInboxError.invalidInboxItem(field: "date", problem: "not a finite date")
        }
        if item.attachments.count > SharedItem.Limits.attachments {
            throw ShareInboxError.invalidInboxItem(field: "attachments", problem: "\(item.attachments.count) attachments, more than the \(SharedItem.Limits.attachments) allowed")
        }
        // Bytes, not String: "caf\u{E9}.txt" and "cafe\u{301}.txt" are two files.
        var seen = Set<[UInt8]>()
        for (index, attachment) in item.attachments.enumerated() {
            try InboxNames.validateComponent(attachment.name, field: "attachments[\(index)].name")
            if !seen.insert(Array(attachment.name.utf8)).inserted {
                throw ShareInboxError.invalidInboxItem(field: "attachments[\(index)].name", problem: "\(AppGroupError.quote(attachment.name)) is used by another attachment of the same item")
            }
        }
        url = item.url?.absoluteString
        title = item.title
        kind = item.kind
        date = item.date.timeIntervalSince1970
        self.sender = sender
        attachments = []
    }

    /// The record as JSON, keys sorted, absent fields left out: what `JSONEncoder`
    /// with `.sortedKeys` writes, made by hand because the encoder was a large
    /// share of an enqueue's work. ``decode(_:path:)`` reads it back
    /// (``decodeCanonical(_:)``, else `JSONDecoder`); tests hold them to the same records.
    func encoded() throws -> Data {
        var json: [UInt8] = []
        json.reserveCapacity(128 + (url?.utf8.count ?? 0) + (title?.utf8.count ?? 0))
        func key(_ name: String) {
            json.append(UInt8(ascii: "\""))
            json.append(contentsOf: name.utf8)
            json.append(contentsOf: "\":".utf8)
        }
        json.append(contentsOf: "{\"attachments\":[".utf8)
        for (index, file) in attachments.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            json.append(contentsOf: "{\"name\":".utf8)
            Self.appendString(file.name, to: &json)
            json.append(contentsOf: ",\"size\":\(file.size)}".utf8)
        }
        json.append(contentsOf: "],".utf8)
        key("date")
        // Finite (checked when validated): the shortest form that reads back exactly.
        json.append(contentsOf: date.description.utf8)
        json.append(UInt8(ascii: ","))
        key("kind")
        Self.appendString(kind, to: &json)
        for (name, value) in [("sender", sender), ("title", title), ("url", url)] {
            guard let value else { continue }
            json.append(UInt8(ascii: ","))
            key(name)
            Self.appendString(value, to: &json)
        }
        json.append(UInt8(ascii: ","))
        key("version")
        json.append(contentsOf: "\(version)}".utf8)
        return Data(json)
    }

    /// `text` as a JSON string: quote, backslash and control characters escaped,
    /// everything else as its UTF-8 bytes.
    private static func appendString(_ text: String, to json: inout [UInt8]) {
        json.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                json.append(UInt8(ascii: "\\"))
                json.append(byte)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                json.append(contentsOf: "\\u00".utf8)
                json.append(hex[Int(byte >> 4)])
                json.append(hex[Int(byte & 0x0F)])
            default:
                json.append(byte)
            }
        }
        json.append(UInt8(ascii: "\""))
    }

    /// Decodes and checks a record read from `path`: every attachment named must be
    /// a safe name. Throws ``ShareInboxError/invalidInboxItem(field:problem:)`` otherwise.
    static func decode(_ data: Data, path: String) throws -> ItemRecord {
        // What this writer wrote, read in one pass; anything else goes to JSONDecoder.
        if let record = decodeCanonical(data) { return record }
        // Another process can write this file: refuse deep nesting before a
        // recursive decoder sees it (a record is 3 levels deep).
        if nests(deeperThan: maximumNesting, data) {
            throw ShareInboxError.invalidInboxItem(field: path, problem: "the record nests arrays or objects more than \(maximumNesting) levels deep (a record has 3); it was not decoded")
        }
        let record: ItemRecord
        do {
            record = try JSONDecoder().decode(ItemRecord.self, from: data)
        } catch {
            throw ShareInboxError.invalidInboxItem(field: path, problem: "the record is not a valid item (\(data.count) bytes): \(error)")
        }
        for (index, file) in record.attachments.enumerated() {
            try InboxNames.validateComponent(file.name, field: "\(path): attachments[\(index)].name")
            guard file.size >= 0, file.size <= ShareInbox.attachmentByteLimit else {
                throw ShareInboxError.invalidInboxItem(field: "\(path): attachments[\(index)]", problem: "\(AppGroupError.quote(file.name)) is recorded as \(file.size) bytes; "
                    + "an attachment may have 0 to \(ShareInbox.attachmentByteLimit) bytes (ShareInbox.attachmentByteLimit)")
            }
        }
        return record
    }

    /// Deepest nesting of arrays and objects a record may have.
    static let maximumNesting = 16

    /// True when arrays and objects in `data` nest deeper than `limit`: one pass
    /// over the bytes, skipping strings, with no recursion.
    static func nests(deeperThan limit: Int, _ data: Data) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        // Over the bytes in place: Data's iterator cost ten times the scan.
        return data.withUnsafeBytes { raw in
        for byte in raw {
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                continue
            }
            switch byte {
            case 0x22: inString = true
            case 0x5B, 0x7B:
                depth += 1
                if depth > limit { return true }
            case 0x5D, 0x7D: depth -= 1
            default: break
            }
        }
        return false
        }
    }

    func received(sequenceNumber: UInt64, directory: URL) -> ReceivedItem {
        ReceivedItem(sequenceNumber: sequenceNumber,
                     url: url.flatMap { URL(string: $0) },
                     title: title,
                     kind: kind,
                     date: Date(timeIntervalSince1970: date),
                     senderBundleIdentifier: sender,
                     attachments: attachments.map { directory.appendingPathComponent($0.name, isDirectory: false) })
    }
}
