import AppGroupContainer
import Foundation

/// Reading and writing whole property-list files for `defaults export/import` and
/// `plist`, with the package's own codec: binary or XML in, exactly as stored
/// (keys that differ only in Unicode normalization stay two keys).
enum PropertyListFile {
    /// The largest file read (64 MiB): far above any suite, keychain or entitlements
    /// file, and a bound on what a mistaken path (a disk image, a log) costs.
    static let readLimit: Int64 = 64 << 20

    /// The bytes at `path`, or standard input for `-`.
    /// - Throws: ``CLIError/notFound(_:)`` for a missing file, ``CLIError/failed(_:)`` otherwise.
    static func readBytes(_ path: String) throws -> Data {
        if path == "-" {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            guard data.count <= readLimit else {
                throw CLIError.failed("standard input holds more than \(readLimit) bytes, more than a property list read here may")
            }
            return data
        }
        do {
            guard let data = try AtomicFile.read(URL(fileURLWithPath: path), limit: readLimit) else {
                throw CLIError.notFound("no file at \(path)")
            }
            return data
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.failed("cannot read \(path): \(error)")
        }
    }

    /// The property list in `data`, read from `source` (for messages).
    /// - Throws: ``CLIError/badValue(_:)`` naming what is wrong and where.
    static func parse(_ data: Data, source: String) throws -> PropertyListTree {
        // The codec bounds depth and expansion itself (PropertyListLimits).
        do {
            return try PropertyListCodec.read(data)
        } catch {
            throw CLIError.badValue("\(source) is not a valid property list: \(error)")
        }
    }

    /// Writes `data` to `path` atomically, or to standard output for `-`.
    static func writeBytes(_ data: Data, to path: String) throws {
        if path == "-" { return FileHandle.standardOutput.write(data) }
        do {
            try AtomicFile.write(data, to: URL(fileURLWithPath: path))
        } catch {
            throw CLIError.failed("cannot write \(path): \(error); nothing was written there")
        }
    }

    /// A tree as the Foundation values SharedDefaults takes.
    /// - Throws: ``CLIError/badValue(_:)`` for a nested dictionary holding two keys
    ///   that differ only in Unicode normalization: a Foundation dictionary would keep
    ///   one of them and lose the other without a word. (Top-level keys are set one by
    ///   one, exactly, and never reach here together.)
    static func foundationValue(_ tree: PropertyListTree, path: String = "") throws -> Any {
        switch tree {
        case .string(let string): return string
        case .integer(.signed(let value)): return Int(value)
        case .integer(.unsigned(let value)): return NSNumber(value: value)
        case .real(let value): return value
        case .bool(let value): return value
        case .date(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
        case .data(let data): return data
        case .array(let elements):
            return try elements.enumerated().map { try foundationValue($0.element, path: path + "/\($0.offset)") }
        case .dictionary(let dictionary):
            var out: [String: Any] = [:]
            for (key, value) in dictionary {
                guard out[key] == nil else {
                    throw CLIError.badValue("the dictionary at \(path) holds two spellings of the key \(PlutilText.quote(key)) (they differ only in "
                                            + "Unicode normalization); a nested dictionary cannot keep both, so nothing was imported. Rename one")
                }
                out[key] = try foundationValue(value, path: path + "/" + key)
            }
            return out
        }
    }
}
