import Foundation

/// Writes the XML property-list format, laid out as Apple's writer does (a tab
/// per level). Characters XML cannot hold literally (controls other than tab and
/// newline) are written as character references, which ``XMLPropertyListReader``
/// reads back; dates keep whole seconds, as the format does on Apple's platforms.
package enum XMLPropertyListWriter {
    /// The bytes of `tree`, UTF-8.
    /// - Throws: ``PropertyListError`` for a date the format cannot hold (not
    ///   finite) or nesting deeper than ``PropertyListLimits/maximumDepth``.
    package static func write(_ tree: PropertyListTree) throws(PropertyListError) -> Data {
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """
        try append(tree, to: &out, depth: 0)
        out += "</plist>\n"
        return Data(out.utf8)
    }

    private static func append(_ tree: PropertyListTree, to out: inout String, depth: Int) throws(PropertyListError) {
        let indent = String(repeating: "\t", count: depth)
        switch tree {
        case .string(let s): out += "\(indent)<string>\(escaped(s))</string>\n"
        case .integer(.signed(let v)): out += "\(indent)<integer>\(v)</integer>\n"
        case .integer(.unsigned(let v)): out += "\(indent)<integer>\(v)</integer>\n"
        case .real(let r): out += "\(indent)<real>\(r)</real>\n"
        case .bool(let b): out += "\(indent)<\(b ? "true" : "false")/>\n"
        case .date(let d):
            guard let text = PropertyListDate.text(d) else {
                throw PropertyListError("the date \(d) (seconds since 2001) cannot be written in an XML property list; use the binary format")
            }
            out += "\(indent)<date>\(text)</date>\n"
        case .data(let d): out += "\(indent)<data>\(d.base64EncodedString())</data>\n"
        case .array(let items):
            guard depth < PropertyListLimits.maximumDepth else { throw tooDeep }
            if items.isEmpty { out += "\(indent)<array/>\n"; return }
            out += "\(indent)<array>\n"
            for item in items { try append(item, to: &out, depth: depth + 1) }
            out += "\(indent)</array>\n"
        case .dictionary(let dictionary):
            guard depth < PropertyListLimits.maximumDepth else { throw tooDeep }
            if dictionary.isEmpty { out += "\(indent)<dict/>\n"; return }
            out += "\(indent)<dict>\n"
            for (key, value) in dictionary {
                out += "\(indent)\t<key>\(escaped(key))</key>\n"
                try append(value, to: &out, depth: depth + 1)
            }
            out += "\(indent)</dict>\n"
        }
    }

    private static var tooDeep: PropertyListError {
        PropertyListError("a value nested deeper than \(PropertyListLimits.maximumDepth) levels of arrays and dictionaries cannot be written")
    }

    private static func escaped(_ s: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(s.unicodeScalars.count)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += "&#x\(String(scalar.value, radix: 16, uppercase: true));"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
