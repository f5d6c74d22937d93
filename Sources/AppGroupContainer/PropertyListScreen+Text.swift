import Foundation

/// The text half of ``PropertyListScreen``: the nesting of XML elements (outside
/// comments, CDATA sections, processing instructions and declarations) or of
/// OpenStep `(` and `{` (outside quoted strings and comments), counted in one pass.
enum TextPropertyListScan {
    static func problem(in data: Data, maximumDepth: Int) -> String? {
        data.withUnsafeBytes { raw -> String? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
            // The package reads and writes UTF-8 only; a scan of UTF-16 or UTF-32 bytes
            // would see no tags, so such a file is refused rather than passed unchecked.
            if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) || bytes.prefix(4).contains(0) {
                return "a UTF-16 or UTF-32 text property list; only UTF-8 (or binary) property lists are read"
            }
            while start < bytes.count, isSpace(bytes[start]) { start += 1 }
            guard start < bytes.count else { return nil }
            let deepest = bytes[start] == UInt8(ascii: "<")
                ? xmlDepth(bytes, from: start, stopAbove: maximumDepth)
                : openStepDepth(bytes, from: start, stopAbove: maximumDepth)
            guard deepest > maximumDepth else { return nil }
            return "a text property list nested deeper than \(maximumDepth) elements"
        }
    }

    private static let commentOpen = Array("<!--".utf8), commentClose = Array("-->".utf8)
    private static let cdataOpen = Array("<![CDATA[".utf8), cdataClose = Array("]]>".utf8)
    private static let instructionOpen = Array("<?".utf8), instructionClose = Array("?>".utf8)
    private static let declarationOpen = Array("<!".utf8), subsetClose = Array("]".utf8)
    private static let tagClose = Array(">".utf8), blockCommentClose = Array("*/".utf8)

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// The index of the first occurrence of `needle` at or after `from`, or nil.
    static func find(_ needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard let first = needle.first, needle.count <= bytes.count else { return nil }
        var i = from
        let last = bytes.count - needle.count
        while i <= last {
            if bytes[i] == first {
                var j = 1
                while j < needle.count, bytes[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }

    static func hasPrefix(_ prefix: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        guard i + prefix.count <= bytes.count else { return false }
        for j in 0..<prefix.count where bytes[i + j] != prefix[j] { return false }
        return true
    }

    /// The deepest element nesting, stopping early once above `limit`.
    static func xmlDepth(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, stopAbove limit: Int) -> Int {
        let open = UInt8(ascii: "<"), close = UInt8(ascii: ">"), slash = UInt8(ascii: "/")
        var depth = 0, deepest = 0, i = from
        while i < bytes.count {
            guard bytes[i] == open else { i += 1; continue }
            if hasPrefix(commentOpen, bytes, at: i) {
                guard let end = find(commentClose, in: bytes, from: i + 4) else { break }
                i = end + 3
            } else if hasPrefix(cdataOpen, bytes, at: i) {
                guard let end = find(cdataClose, in: bytes, from: i + 9) else { break }
                i = end + 3
            } else if hasPrefix(instructionOpen, bytes, at: i) {
                guard let end = find(instructionClose, in: bytes, from: i + 2) else { break }
                i = end + 2
            } else if hasPrefix(declarationOpen, bytes, at: i) {
                // A declaration such as <!DOCTYPE ...>, possibly with an internal subset in [ ].
                var j = i + 2
                while j < bytes.count, bytes[j] != close, bytes[j] != UInt8(ascii: "[") { j += 1 }
                if j < bytes.count, bytes[j] == UInt8(ascii: "["), let end = find(subsetClose, in: bytes, from: j) { j = end }
                guard let end = find(tagClose, in: bytes, from: j) else { break }
                i = end + 1
            } else if i + 1 < bytes.count, bytes[i + 1] == slash {
                depth = max(0, depth - 1)
                guard let end = find(tagClose, in: bytes, from: i + 2) else { break }
                i = end + 1
            } else {
                guard let end = find(tagClose, in: bytes, from: i + 1) else { break }
                if bytes[end - 1] != slash {
                    depth += 1
                    deepest = max(deepest, depth)
                    if deepest > limit { return deepest }
                }
                i = end + 1
            }
        }
        return deepest
    }

    /// The deepest `(` / `{` nesting of an OpenStep list, stopping early once above `limit`.
    static func openStepDepth(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, stopAbove limit: Int) -> Int {
        var depth = 0, deepest = 0, i = from
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                i += 1
                while i < bytes.count, bytes[i] != byte { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
                i += 1
            case UInt8(ascii: "/") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "*"):
                guard let end = find(blockCommentClose, in: bytes, from: i + 2) else { return deepest }
                i = end + 2
            case UInt8(ascii: "/") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "/"):
                while i < bytes.count, bytes[i] != 0x0A { i += 1 }
            case UInt8(ascii: "("), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
                if deepest > limit { return deepest }
                i += 1
            case UInt8(ascii: ")"), UInt8(ascii: "}"):
                depth = max(0, depth - 1)
                i += 1
            default:
                i += 1
            }
        }
        return deepest
    }
}
