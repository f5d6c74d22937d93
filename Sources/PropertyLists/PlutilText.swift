import Foundation

/// Renders a property list the way `plutil -p` prints one: two-space indents,
/// `"key" => value`, arrays as `[ 0 => ... ]` with indices, dictionaries in file
/// order, booleans `true`/`false`, data as `{length = N, bytes = 0x...}` and dates
/// as `2026-11-30 09:00:00 +0000`.
///
/// The appgroup tool's `plist` command prints with it, and quotes names in its
/// messages with ``quote(_:)``.
package enum PlutilText {
    /// `tree` as `plutil -p` prints it, nested `indent` levels deep.
    package static func render(_ tree: PropertyListTree, indent: Int = 0) -> String {
        let inner = String(repeating: "  ", count: indent + 1)
        let pad = String(repeating: "  ", count: indent)
        switch tree {
        case .dictionary(let dictionary):
            let lines = dictionary.entries.map { inner + quote($0.key) + " => " + render($0.value, indent: indent + 1) }
            return "{\n" + lines.map { $0 + "\n" }.joined() + pad + "}"
        case .array(let elements):
            let lines = elements.enumerated().map { inner + "\($0.offset) => " + render($0.element, indent: indent + 1) }
            return "[\n" + lines.map { $0 + "\n" }.joined() + pad + "]"
        case .string(let string): return quote(string)
        case .integer(.signed(let value)): return String(value)
        case .integer(.unsigned(let value)): return String(value)
        case .real(let value): return OldStylePlist.number(value)
        case .bool(let value): return value ? "true" : "false"
        case .date(let seconds): return OldStylePlist.dateFormatter.string(from: Date(timeIntervalSinceReferenceDate: seconds))
        case .data(let data):
            // Long data is shortened, as plutil does, so a large blob stays one line.
            let shown = data.count > 24 ? OldStylePlist.hex(data.prefix(8)) + " ... " + OldStylePlist.hex(data.suffix(8)) : OldStylePlist.hex(data)
            return "{length = \(data.count), bytes = 0x\(shown)}"
        }
    }

    /// A string in double quotes, always (plutil quotes every string).
    package static func quote(_ string: String) -> String { OldStylePlist.quoted(string) }

    /// The tree as JSON (`plutil -convert json`): dates and data have no JSON form,
    /// so, as plutil, a tree holding one is refused, saying where.
    /// - Throws: ``PropertyListError`` naming the value JSON cannot hold and its path.
    package static func jsonObject(_ tree: PropertyListTree, path: String = "") throws(PropertyListError) -> Any {
        switch tree {
        case .dictionary(let dictionary):
            var out: [String: Any] = [:]
            for (key, value) in dictionary {
                guard out[key] == nil else {
                    throw PropertyListError("the keys \(quote(key)) at \(path.isEmpty ? "the top" : path) are two spellings of one key in JSON; convert to xml1 or binary1 instead")
                }
                out[key] = try jsonObject(value, path: path + "/" + key)
            }
            return out
        case .array(let elements):
            return try elements.enumerated().map { (entry) throws(PropertyListError) in try jsonObject(entry.element, path: path + "/\(entry.offset)") }
        case .string(let string): return string
        case .integer(.signed(let value)): return Int(value)
        case .integer(.unsigned(let value)): return NSNumber(value: value)
        case .real(let value):
            guard value.isFinite else { throw PropertyListError("invalid object in plist for destination format: the real at \(path.isEmpty ? "the top" : path) is not finite, which JSON cannot hold") }
            return value
        case .bool(let value): return value
        case .date, .data:
            throw PropertyListError("invalid object in plist for destination format: the \(tree.kind) at \(path.isEmpty ? "the top" : path) has no JSON form; convert to xml1 or binary1 instead")
        }
    }
}
