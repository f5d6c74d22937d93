import Foundation

/// Parses the old-style (OpenStep) property-list text `defaults write` accepts for
/// an untyped value that looks like a collection: `'(a, b)'` is an array of two
/// strings, `'{ k = v; n = (1, 2); }'` a dictionary. As in that format, every leaf
/// is a string (`1` is the string "1"), `<68656c6c6f>` is data, words of letters,
/// digits and `_$+/:.-` need no quotes, and `//` and `/* */` comments are skipped.
///
/// Used by the appgroup tool's `defaults write`; it yields Foundation values (not a
/// ``PropertyListTree``) because that is what the value is stored from.
package struct OldStyleParser {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var depth = 0

    /// Deeper nesting than any preference needs is refused rather than recursed into.
    package static let maximumDepth = 64

    /// The value `text` holds, which must be one array or dictionary.
    /// - Throws: ``PropertyListError`` saying what is wrong and at which character.
    package static func parse(_ text: String) throws(PropertyListError) -> Any {
        var parser = OldStyleParser(scalars: Array(text.unicodeScalars))
        let value = try parser.value()
        parser.skipSpace()
        guard parser.index == parser.scalars.count else { throw parser.failure("unexpected text after the value") }
        return value
    }

    /// True when an untyped value is meant as a property list (starts with `(` or `{`).
    package static func looksLikePropertyList(_ text: String) -> Bool {
        let first = text.unicodeScalars.first { !CharacterSet.whitespacesAndNewlines.contains($0) }
        return first == "(" || first == "{"
    }

    private init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

    private mutating func value() throws(PropertyListError) -> Any {
        skipSpace()
        guard index < scalars.count else { throw failure("the text ends where a value is expected") }
        switch scalars[index] {
        case "(": return try nested { (parser) throws(PropertyListError) in try parser.array() }
        case "{": return try nested { (parser) throws(PropertyListError) in try parser.dictionary() }
        case "<": return try data()
        default: return try string()
        }
    }

    private mutating func nested(_ body: (inout OldStyleParser) throws(PropertyListError) -> Any) throws(PropertyListError) -> Any {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw failure("collections nest more than \(Self.maximumDepth) levels deep") }
        index += 1 // the opening bracket
        return try body(&self)
    }

    private mutating func array() throws(PropertyListError) -> [Any] {
        var elements: [Any] = []
        while true {
            skipSpace()
            if try take(")") { return elements }
            elements.append(try value())
            skipSpace()
            if try take(")") { return elements }
            guard try take(",") else { throw failure("expected ',' or ')' in an array") }
        }
    }

    private mutating func dictionary() throws(PropertyListError) -> [String: Any] {
        var pairs: [String: Any] = [:]
        while true {
            skipSpace()
            if try take("}") { return pairs }
            let keyStart = index
            let key = try string()
            skipSpace()
            guard try take("=") else { throw failure("expected '=' after the key \"\(key)\"") }
            // A Swift dictionary holds one of two spellings that differ only in Unicode
            // normalization; Apple's keeps both. Refused rather than one silently lost.
            if let at = pairs.index(forKey: key), case let twin = pairs[at].key, !twin.unicodeScalars.elementsEqual(key.unicodeScalars) {
                index = keyStart
                throw failure("the keys \"\(twin)\" and \"\(key)\" differ only in Unicode normalization, and one dictionary here cannot keep both")
            }
            pairs[key] = try value()
            skipSpace()
            guard try take(";") else { throw failure("expected ';' after the value of \"\(key)\"") }
        }
    }

    private mutating func data() throws(PropertyListError) -> Data {
        index += 1 // "<"
        var hex = ""
        while index < scalars.count, scalars[index] != ">" {
            hex.unicodeScalars.append(scalars[index])
            index += 1
        }
        guard try take(">") else { throw failure("data is not closed with '>'") }
        guard let bytes = OldStylePlist.data(hex: hex) else { throw failure("<\(hex)> is not hex data") }
        return bytes
    }

    private mutating func string() throws(PropertyListError) -> String {
        guard index < scalars.count else { throw failure("the text ends where a string is expected") }
        if scalars[index] == "\"" { return try quoted() }
        var word = ""
        while index < scalars.count, Self.isWordScalar(scalars[index]) {
            word.unicodeScalars.append(scalars[index])
            index += 1
        }
        guard !word.isEmpty else { throw failure("unexpected '\(scalars[index])'; quote strings that hold it") }
        return word
    }

    private mutating func quoted() throws(PropertyListError) -> String {
        index += 1 // opening quote
        var out = ""
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if scalar == "\"" { return out }
            guard scalar == "\\" else { out.unicodeScalars.append(scalar); continue }
            guard index < scalars.count else { break }
            let escaped = scalars[index]
            index += 1
            switch escaped {
            case "n": out += "\n"
            case "t": out += "\t"
            case "r": out += "\r"
            case "U", "u": out.unicodeScalars.append(try unicodeEscape())
            default: out.unicodeScalars.append(escaped)
            }
        }
        throw failure("a quoted string is not closed")
    }

    /// The four hex digits after `\U`: a UTF-16 code unit, as in Apple's format, so a
    /// character beyond U+FFFF is a surrogate pair of two escapes (`\UD83D\UDE00`).
    /// A lone surrogate is refused: no string can hold it.
    private mutating func unicodeEscape() throws(PropertyListError) -> Unicode.Scalar {
        let high = try codeUnit()
        if let scalar = Unicode.Scalar(UInt32(high)) { return scalar }
        let digits = String(high, radix: 16, uppercase: true)
        if high & 0xFC00 == 0xD800, index + 6 <= scalars.count, scalars[index] == "\\", scalars[index + 1] == "U" || scalars[index + 1] == "u" {
            let save = index
            index += 2
            let low = try codeUnit()
            if low & 0xFC00 == 0xDC00, let scalar = Unicode.Scalar(0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(low) - 0xDC00)) {
                return scalar
            }
            index = save
        }
        throw failure("\\U\(digits) is half of a surrogate pair without its other half, which no string can hold")
    }

    /// Four hex digits.
    private mutating func codeUnit() throws(PropertyListError) -> UInt16 {
        guard index + 4 <= scalars.count else { throw failure("\\U needs four hex digits") }
        let digits = String(String.UnicodeScalarView(scalars[index..<index + 4]))
        guard let code = UInt16(digits, radix: 16) else { throw failure("\\U\(digits) is not four hex digits") }
        index += 4
        return code
    }

    private mutating func take(_ scalar: Unicode.Scalar) throws(PropertyListError) -> Bool {
        guard index < scalars.count, scalars[index] == scalar else { return false }
        index += 1
        return true
    }

    /// Skips whitespace and comments.
    private mutating func skipSpace() {
        while index < scalars.count {
            if CharacterSet.whitespacesAndNewlines.contains(scalars[index]) {
                index += 1
            } else if scalars[index] == "/", index + 1 < scalars.count, scalars[index + 1] == "/" {
                while index < scalars.count, scalars[index] != "\n" { index += 1 }
            } else if scalars[index] == "/", index + 1 < scalars.count, scalars[index + 1] == "*" {
                index += 2
                while index + 1 < scalars.count, !(scalars[index] == "*" && scalars[index + 1] == "/") { index += 1 }
                index = min(index + 2, scalars.count)
            } else {
                return
            }
        }
    }

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.isASCII && CharacterSet.alphanumerics.contains(scalar)) || "_$+/:.-".unicodeScalars.contains(scalar)
    }

    /// The problem and where: the caller adds what to do (appgroup: quote the value, or type it).
    private func failure(_ problem: String) -> PropertyListError {
        PropertyListError("\(problem) (at character \(index + 1))")
    }
}
