import Foundation

/// Reads the XML property-list format (what a person or `plutil -convert xml1`
/// leaves), by hand rather than through an XML library: only the plist
/// vocabulary, UTF-8, the five predefined entities and character references,
/// comments and CDATA. No DTD is fetched and no entity is expanded, so a file
/// cannot make the reader reach out or blow up.
///
/// A byte-order mark is one only as the document's first bytes; a U+FEFF anywhere
/// else, a string's first character included, is content and kept, as Apple's
/// reader keeps it. Keys stay exactly as written (see ``PropertyListDictionary``). Nesting is
/// limited to ``PropertyListLimits/maximumDepth`` and walked with an explicit
/// stack; every message gives the byte offset.
package enum XMLPropertyListReader {
    /// The value `data` holds.
    /// - Throws: ``PropertyListError`` saying what is wrong and at which byte.
    package static func read(_ data: Data) throws(PropertyListError) -> PropertyListTree {
        var parser = Parser(bytes: [UInt8](data))
        return try parser.run()
    }

    private enum Frame {
        case array([PropertyListTree])
        case dictionary(PropertyListDictionary, pendingKey: String?)
    }

    private struct Tag {
        let name: String
        let closing: Bool
        let empty: Bool
        let at: Int
    }

    private struct Parser {
        let bytes: [UInt8]
        var i = 0
        var values = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        func fail(_ what: String, at: Int? = nil) -> PropertyListError {
            PropertyListError("an XML property list that cannot be read: \(what) (at byte \(at ?? i))")
        }

        mutating func run() throws(PropertyListError) -> PropertyListTree {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
            if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) {
                throw PropertyListError("an XML property list in UTF-16, which is not read; convert it to UTF-8 (plutil -convert xml1)")
            }
            try skipProlog()
            var tag = try nextTag()
            var wrapped = false
            if tag.name == "plist", !tag.closing {
                wrapped = true
                if tag.empty { throw fail("an empty <plist/> element", at: tag.at) }
                tag = try nextTag()
            }
            let root = try value(startingWith: tag)
            if wrapped {
                let end = try nextTag()
                guard end.name == "plist", end.closing else { throw fail("<\(end.closing ? "/" : "")\(end.name)> where </plist> was expected", at: end.at) }
            }
            try skipMisc()
            guard i == bytes.count else { throw fail("content after the end of the property list") }
            return root
        }

        /// Reads one value whose opening tag is `first`, containers included.
        mutating func value(startingWith first: Tag) throws(PropertyListError) -> PropertyListTree {
            var stack: [Frame] = []
            var tag = first
            while true {
                var done: PropertyListTree?
                if tag.closing {
                    guard let top = stack.popLast() else { throw fail("an unexpected </\(tag.name)>", at: tag.at) }
                    switch (top, tag.name) {
                    case (.array(let items), "array"): done = .array(items)
                    case (.dictionary(let d, nil), "dict"): done = .dictionary(d)
                    case (.dictionary(_, let key?), "dict"):
                        throw fail("the key \"\(key)\" has no value before </dict>", at: tag.at)
                    default: throw fail("a </\(tag.name)> that closes nothing open", at: tag.at)
                    }
                } else {
                    values += 1
                    if values > PropertyListLimits.maximumValues {
                        throw fail("more than \(PropertyListLimits.maximumValues) values")
                    }
                    switch tag.name {
                    case "array", "dict":
                        if tag.empty {
                            done = tag.name == "array" ? .array([]) : .dictionary(PropertyListDictionary())
                        } else {
                            if stack.count >= PropertyListLimits.maximumDepth - 1 {
                                throw PropertyListError("a property list nested deeper than \(PropertyListLimits.maximumDepth) levels of arrays and dictionaries (at byte \(tag.at)); refused")
                            }
                            stack.append(tag.name == "array" ? .array([]) : .dictionary(PropertyListDictionary(), pendingKey: nil))
                        }
                    case "key":
                        guard case .dictionary(let d, nil)? = stack.last else {
                            throw fail("a <key> outside a dictionary, or two keys in a row", at: tag.at)
                        }
                        let key = try text(of: tag)
                        stack[stack.count - 1] = .dictionary(d, pendingKey: key)
                    default:
                        done = try scalar(tag)
                    }
                }
                if let value = done {
                    guard let top = stack.popLast() else { return value }
                    switch top {
                    case .array(var items):
                        items.append(value)
                        stack.append(.array(items))
                    case .dictionary(var d, let key?):
                        d.set(value, forKey: key)
                        stack.append(.dictionary(d, pendingKey: nil))
                    case .dictionary(_, nil):
                        throw fail("a <\(tag.name)> in a dictionary without a <key> before it", at: tag.at)
                    }
                }
                tag = try nextTag()
            }
        }

        mutating func scalar(_ tag: Tag) throws(PropertyListError) -> PropertyListTree {
            switch tag.name {
            case "string": return .string(try text(of: tag))
            case "true", "false":
                if !tag.empty {
                    let inner = try text(of: tag)
                    guard inner.allSatisfy(\.isWhitespace) else { throw fail("text inside <\(tag.name)>", at: tag.at) }
                }
                return .bool(tag.name == "true")
            case "integer":
                let t = try text(of: tag).trimmingCharacters(in: .whitespacesAndNewlines)
                if let v = Int64(t) { return .integer(.signed(v)) }
                if let v = UInt64(t.hasPrefix("+") ? String(t.dropFirst()) : t) { return .integer(PropertyListInteger(v)) }
                let hex = t.lowercased()
                if hex.hasPrefix("0x"), let v = UInt64(hex.dropFirst(2), radix: 16) { return .integer(PropertyListInteger(v)) }
                // The magnitude as unsigned, so -0x8000000000000000 (Int64.min) reads too.
                if hex.hasPrefix("-0x"), let m = UInt64(hex.dropFirst(3), radix: 16), m <= UInt64(Int64.max) + 1 {
                    return .integer(.signed(Int64(truncatingIfNeeded: 0 &- m)))
                }
                throw fail("<integer>\(t)</integer> is not an integer of at most 64 bits", at: tag.at)
            case "real":
                let t = try text(of: tag).trimmingCharacters(in: .whitespacesAndNewlines)
                // Refused rather than read as an infinity or 0 when the text is beyond a real's range.
                switch PropertyListReal.parse(t) {
                case .success(let v): return .real(v)
                case .failure(let problem): throw fail("<real>\(t)</real> \(problem.explanation)", at: tag.at)
                }
            case "date":
                let t = try text(of: tag).trimmingCharacters(in: .whitespacesAndNewlines)
                guard let seconds = PropertyListDate.seconds(t) else {
                    throw fail("<date>\(t)</date> is not a date of the form 2001-01-01T00:00:00Z", at: tag.at)
                }
                return .date(seconds)
            case "data":
                let t = try text(of: tag).filter { !$0.isWhitespace }
                guard let d = Data(base64Encoded: t) else { throw fail("<data> that is not base64", at: tag.at) }
                return .data(d)
            default:
                throw fail("the element <\(tag.name)>, which property lists do not have", at: tag.at)
            }
        }

        /// The character content of `tag` up to its closing tag ("" for an empty element).
        mutating func text(of tag: Tag) throws(PropertyListError) -> String {
            if tag.empty { return "" }
            var out: [UInt8] = []
            while i < bytes.count {
                let b = bytes[i]
                if b == UInt8(ascii: "<") {
                    if starts("<![CDATA[") {
                        i += 9
                        guard let end = find("]]>") else { throw fail("an unterminated CDATA section") }
                        out += bytes[i..<end]
                        i = end + 3
                    } else if starts("<!--") {
                        try skipComment()
                    } else {
                        let end = try nextTag()
                        guard end.closing, end.name == tag.name else {
                            throw fail("<\(end.closing ? "/" : "")\(end.name)> inside <\(tag.name)>", at: end.at)
                        }
                        // Validated as it stands: Foundation's String(bytes:encoding:) drops a
                        // leading U+FEFF, which here is content (only the document's first bytes
                        // can be a byte-order mark), so "\u{FEFF}k" and "k" would become one key.
                        guard let s = String(validating: out, as: UTF8.self) else { throw fail("text that is not UTF-8", at: tag.at) }
                        return s
                    }
                } else if b == UInt8(ascii: "&") {
                    out += Array(try entity().utf8)
                } else {
                    out.append(b)
                    i += 1
                }
            }
            throw fail("<\(tag.name)> is never closed", at: tag.at)
        }

        mutating func entity() throws(PropertyListError) -> String {
            let start = i
            guard let semicolon = bytes[i...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                throw fail("an & that begins no entity", at: start)
            }
            let name = String(decoding: bytes[(i + 1)..<semicolon], as: UTF8.self)
            i = semicolon + 1
            switch name {
            case "lt": return "<"
            case "gt": return ">"
            case "amp": return "&"
            case "quot": return "\""
            case "apos": return "'"
            default:
                var code: UInt32?
                if name.hasPrefix("#x") || name.hasPrefix("#X") { code = UInt32(name.dropFirst(2), radix: 16) }
                else if name.hasPrefix("#") { code = UInt32(name.dropFirst()) }
                guard let code, let scalar = Unicode.Scalar(code) else {
                    throw fail("the entity &\(name); (only &lt; &gt; &amp; &quot; &apos; and character references are read)", at: start)
                }
                return String(Character(scalar))
            }
        }

        func starts(_ s: String) -> Bool {
            let u = Array(s.utf8)
            return bytes.count - i >= u.count && bytes[i..<(i + u.count)].elementsEqual(u)
        }

        func find(_ s: String) -> Int? {
            let u = Array(s.utf8)
            var j = i
            while j + u.count <= bytes.count {
                if bytes[j] == u[0], bytes[j..<(j + u.count)].elementsEqual(u) { return j }
                j += 1
            }
            return nil
        }

        mutating func skipComment() throws(PropertyListError) {
            let start = i
            i += 4
            guard let end = find("-->") else { throw fail("an unterminated comment", at: start) }
            i = end + 3
        }

        mutating func skipWhitespace() {
            while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        }

        /// Whitespace and comments.
        mutating func skipMisc() throws(PropertyListError) {
            while true {
                skipWhitespace()
                if starts("<!--") { try skipComment() } else { return }
            }
        }

        /// The XML declaration, a DOCTYPE (its internal subset, if any, skipped,
        /// never interpreted), comments and whitespace.
        mutating func skipProlog() throws(PropertyListError) {
            while true {
                try skipMisc()
                if starts("<?") {
                    let start = i
                    guard let end = find("?>") else { throw fail("an unterminated <? ... ?>", at: start) }
                    let declaration = String(decoding: bytes[start..<end], as: UTF8.self).lowercased()
                    if let range = declaration.range(of: "encoding=") {
                        let value = declaration[range.upperBound...].dropFirst().prefix { $0 != "\"" && $0 != "'" }
                        guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(String(value)) else {
                            throw PropertyListError("an XML property list in the encoding \"\(value)\", which is not read; convert it to UTF-8 (plutil -convert xml1)")
                        }
                    }
                    i = end + 2
                } else if starts("<!DOCTYPE") {
                    let start = i
                    var brackets = 0
                    while i < bytes.count {
                        let b = bytes[i]
                        i += 1
                        if b == UInt8(ascii: "[") { brackets += 1 }
                        if b == UInt8(ascii: "]") { brackets -= 1 }
                        if b == UInt8(ascii: ">"), brackets <= 0 { break }
                    }
                    guard i <= bytes.count, bytes[i - 1] == UInt8(ascii: ">") else { throw fail("an unterminated <!DOCTYPE", at: start) }
                } else {
                    return
                }
            }
        }

        /// The next tag, after whitespace and comments; text there is an error.
        mutating func nextTag() throws(PropertyListError) -> Tag {
            try skipMisc()
            let at = i
            guard i < bytes.count else { throw fail("the file ends where an element was expected") }
            guard bytes[i] == UInt8(ascii: "<") else { throw fail("text where an element was expected") }
            i += 1
            let closing = i < bytes.count && bytes[i] == UInt8(ascii: "/")
            if closing { i += 1 }
            let nameStart = i
            while i < bytes.count, isNameByte(bytes[i]) { i += 1 }
            let name = String(decoding: bytes[nameStart..<i], as: UTF8.self)
            guard !name.isEmpty else { throw fail("a malformed tag", at: at) }
            // Attributes (plist version="1.0") are skipped; quotes may hold '>'.
            var quote: UInt8?
            while i < bytes.count {
                let b = bytes[i]
                if let q = quote { if b == q { quote = nil } }
                else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") { quote = b }
                else if b == UInt8(ascii: ">") { break }
                i += 1
            }
            guard i < bytes.count else { throw fail("the tag <\(name) is never closed", at: at) }
            let empty = i > nameStart && bytes[i - 1] == UInt8(ascii: "/")
            i += 1
            if closing && empty { throw fail("a malformed tag </\(name)/>", at: at) }
            return Tag(name: name, closing: closing, empty: empty, at: at)
        }

        func isNameByte(_ b: UInt8) -> Bool {
            (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x5F || b == 0x3A || b == 0x2E
        }
    }
}
