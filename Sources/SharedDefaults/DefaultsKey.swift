import Foundation

/// The rules a key must meet to be written. Apple's defaults take any string, but
/// an empty key is always a bug, a NUL cannot be written to an XML property list
/// (and is cut short by every C reader of one), and a key of megabytes would eat
/// the suite's 4 MiB budget on every save.
enum DefaultsKey {
    /// Longest key accepted for writing, in UTF-8 bytes.
    static let maximumLength = 4096

    /// Throws unless `key` can be written.
    /// - Throws: ``SharedDefaultsError/invalidKey(_:problem:)``.
    static func validate(_ key: String) throws {
        let problem: String?
        if key.isEmpty {
            problem = "it is empty"
        } else if key.utf8.count > maximumLength {
            problem = "it is \(key.utf8.count) bytes, more than the \(maximumLength) bytes allowed"
        } else if key.utf8.contains(0) {
            problem = "it contains a NUL byte, which property-list files cannot hold"
        } else {
            problem = nil
        }
        if let problem { throw SharedDefaultsError.invalidKey(shortened(key), problem: problem) }
    }

    /// The key as an error shows it: at most 80 characters, NULs made visible.
    static func shortened(_ key: String) -> String {
        let visible = key.replacingOccurrences(of: "\0", with: "\\0")
        return visible.count > 80 ? String(visible.prefix(60)) + "…" : visible
    }
}
