import Foundation

/// Renders property-list values the way `defaults read` prints them: the old-style
/// (NeXTSTEP) text form, with dictionaries in braces, arrays in parentheses and
/// strings quoted only when they need it.
///
/// The appgroup tool's `defaults` commands print with it; it works on Foundation
/// values (what `SharedDefaults` hands out), not on a ``PropertyListTree``.
package enum OldStylePlist {
    /// `value` as it appears inside a dictionary or an array, nested `indent` levels deep.
    package static func render(_ value: Any, indent: Int = 0) -> String {
        let pad = String(repeating: "    ", count: indent)
        let inner = String(repeating: "    ", count: indent + 1)
        switch value {
        case let dictionary as [String: Any]:
            if dictionary.isEmpty { return "{\n" + pad + "}" }
            let lines = dictionary.sorted { $0.key < $1.key }.map { key, element in
                inner + quote(key) + " = " + render(element, indent: indent + 1) + ";"
            }
            return "{\n" + lines.joined(separator: "\n") + "\n" + pad + "}"
        case let array as [Any]:
            if array.isEmpty { return "(\n" + pad + ")" }
            let lines = array.map { inner + render($0, indent: indent + 1) }
            return "(\n" + lines.joined(separator: ",\n") + "\n" + pad + ")"
        case let string as String:
            return quote(string)
        case let bool as Bool where type(of: value) == Bool.self:
            return bool ? "1" : "0"
        case let int as Int:
            return String(int)
        case let unsigned as UInt64:
            return String(unsigned)
        case let double as Double:
            return number(double)
        case let date as Date:
            return quote(dateFormatter.string(from: date))
        case let data as Data:
            return "{length = \(data.count), bytes = 0x" + hex(data) + "}"
        case let url as URL:
            return quote(url.absoluteString)
        case let number as NSNumber:
            return number.stringValue
        default:
            return quote(String(describing: value))
        }
    }

    /// A whole domain from its entries in order (keys exactly as stored, so two
    /// that differ only in Unicode normalization are both printed).
    package static func render(entries: [(key: String, value: Any)]) -> String {
        if entries.isEmpty { return "{\n}" }
        let lines = entries.map { "    " + quote($0.key) + " = " + render($0.value, indent: 1) + ";" }
        return "{\n" + lines.joined(separator: "\n") + "\n}"
    }

    /// Dates as `defaults` and `plutil` print them, `2026-11-30 09:00:00 +0000`: in
    /// UTC and the POSIX locale, so the text is the same on every machine.
    package static let dateFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        return formatter
    }()

    /// `data` as lowercase hex digits, two a byte, as `defaults` prints data.
    package static func hex(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(data.count * 2)
        for byte in data {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Hex digits (optionally `0x`-prefixed, spaces and `<>` ignored, as `defaults`
    /// prints data) to bytes; nil for anything else.
    package static func data(hex raw: String) -> Data? {
        let digits = raw.hasPrefix("0x") || raw.hasPrefix("0X") ? String(raw.dropFirst(2)) : raw
        // Work on ASCII bytes: a Character may be a multi-scalar cluster.
        let cleaned = Array(digits.utf8.filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x3C && $0 != 0x3E })
        guard cleaned.count % 2 == 0 else { return nil }
        var data = Data(capacity: cleaned.count / 2)
        var index = 0
        while index < cleaned.count {
            guard let high = hexDigit(cleaned[index]), let low = hexDigit(cleaned[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }

    /// "a string", "an array"...: what a value is, for messages.
    package static func kind(of value: Any) -> String {
        guard let type = ValueType(value) else { return "a \(type(of: value))" }
        switch type {
        case .string: return "a string"
        case .boolean: return "a boolean"
        case .integer: return "an integer"
        case .float: return "a real number"
        case .data: return "data"
        case .date: return "a date"
        case .array: return "an array"
        case .dictionary: return "a dictionary"
        }
    }

    /// The property-list types, named as `defaults read-type` names them.
    package enum ValueType: String {
        case string, boolean, integer, float, data, date, array, dictionary

        /// The type of a Foundation property-list value; nil for anything else.
        package init?(_ value: Any) {
            switch value {
            case is String: self = .string
            case is Bool where type(of: value) == Bool.self: self = .boolean
            case is Int, is UInt64: self = .integer
            case is Double: self = .float
            case is Data: self = .data
            case is Date: self = .date
            case is [Any]: self = .array
            case is [String: Any]: self = .dictionary
            default: return nil
            }
        }
    }

    /// A real as `defaults` prints it: `1.5`, and `2` for 2.0.
    package static func number(_ double: Double) -> String {
        if double == double.rounded(), abs(double) < 1e15 { return String(Int(double)) }
        return String(double)
    }

    /// How `defaults read` prints a value on its own (`defaults read DOMAIN KEY`):
    /// strings and dates bare, everything else as inside a dictionary.
    package static func renderTopLevel(_ value: Any) -> String {
        switch value {
        case let string as String: return string
        case let date as Date: return dateFormatter.string(from: date)
        default: return render(value)
        }
    }

    /// Quotes unless the string is a bare word of ASCII letters, digits and `_`
    /// (`defaults` quotes `"bundle-identifier"` and `"com.apple.finder"`).
    package static func quote(_ string: String) -> String {
        let bare = !string.isEmpty && string.unicodeScalars.allSatisfy {
            ($0.isASCII && CharacterSet.alphanumerics.contains($0)) || $0 == "_"
        }
        return bare ? string : quoted(string)
    }

    /// `string` in double quotes, with quotes, backslashes and control characters escaped.
    package static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += String(format: "\\U%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}
