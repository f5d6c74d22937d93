import AppGroupContainer
import Foundation
import PropertyLists

/// Reading and writing whole property-list files for `defaults export/import` and
/// `plist`, with the package's own codec: binary or XML in, exactly as stored
/// (keys that differ only in Unicode normalization stay two keys).
enum PropertyListFile {
    /// The largest file read (64 MiB): far above any suite, keychain or entitlements
    /// file, and a bound on what a mistaken path (a disk image, a log) costs.
    static let readLimit: Int64 = 64 << 20

    /// The bytes at `path`, or standard input for `-`; either is read up to
    /// ``readLimit`` and no further (an endless pipe ends with the limit's error).
    /// - Throws: ``CLIError/notFound(_:)`` for a missing file, ``CLIError/failed(_:)`` otherwise.
    static func readBytes(_ path: String) throws -> Data {
        if path == "-" {
            do {
                return try StandardInput.readAll(limit: readLimit)
            } catch {
                if case .fileTooLarge = error {
                    throw CLIError.failed("standard input holds more than \(readLimit) bytes (64 MiB, the most a property list read here may be); reading stopped there and nothing was changed")
                }
                throw CLIError.failed("cannot read standard input: \(error); nothing was changed")
            }
        }
        do {
            let url = URL(fileURLWithPath: path)
            guard let data = try AtomicFile.read(url, below: .marked(above: url), limit: readLimit) else {
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
            let url = URL(fileURLWithPath: path)
            try AtomicFile.write(data, to: url, below: .marked(above: url))
        } catch {
            throw CLIError.failed("cannot write \(path): \(error); nothing was written there")
        }
    }
}
