import Foundation

extension ItemRecord {
    /// A record of these fields (the canonical reader's result).
    init(version: Int, url: String?, title: String?, kind: String, date: Double, sender: String?, attachments: [File]) {
        self.version = version
        self.url = url
        self.title = title
        self.kind = kind
        self.date = date
        self.sender = sender
        self.attachments = attachments
    }

    /// The record when `data` is exactly what ``encoded()`` writes for an item
    /// without attachments whose strings need no escape; nil for anything else
    /// (other keys, another order, spaces, an escape, attachments, bad UTF-8...),
    /// which ``decode(_:path:)`` then reads with `JSONDecoder`. It accepts only
    /// bytes `JSONDecoder` reads as the same record, and costs a fraction of it
    /// (the decoder was the larger part of a drain's work per item).
    static func decodeCanonical(_ data: Data) -> ItemRecord? {
        data.withUnsafeBytes { raw -> ItemRecord? in
            var scan = CanonicalScan(bytes: raw.bindMemory(to: UInt8.self))
            guard scan.literal(#"{"attachments":[],"date":"#), let date = scan.number().flatMap({ Double($0) }), date.isFinite,
                  scan.literal(#","kind":"#), let kind = scan.string() else { return nil }
            var sender: String?, title: String?, url: String?
            if scan.literal(#","sender":"#) { guard let value = scan.string() else { return nil }; sender = value }
            if scan.literal(#","title":"#) { guard let value = scan.string() else { return nil }; title = value }
            if scan.literal(#","url":"#) { guard let value = scan.string() else { return nil }; url = value }
            guard scan.literal(#","version":"#), let digits = scan.number(), !digits.contains(where: { !$0.isNumber && $0 != "-" }),
                  let version = Int(digits), scan.literal("}"), scan.atEnd else { return nil }
            return ItemRecord(version: version, url: url, title: title, kind: kind, date: date, sender: sender, attachments: [])
        }
    }
}

/// A cursor over a record's bytes for ``ItemRecord/decodeCanonical(_:)``.
private struct CanonicalScan {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    var atEnd: Bool { index == bytes.count }

    /// Passes `text` when the bytes at the cursor are exactly it.
    mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        let expected = UnsafeBufferPointer(start: text.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != expected[offset] { return false }
        index += count
        return true
    }

    /// A JSON string without escapes or control characters, valid UTF-8.
    mutating func string() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            if bytes[end] == UInt8(ascii: "\\") || bytes[end] < 0x20 { return nil }
            end += 1
        }
        guard end < bytes.count else { return nil }
        index = end + 1
        return String(validating: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// A JSON number's text (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`).
    mutating func number() -> String? {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            return index - from
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integer = index
        let count = digits()
        guard count > 0, count == 1 || bytes[integer] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return nil }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return nil }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }
}
