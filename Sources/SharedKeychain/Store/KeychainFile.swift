import AppGroupContainer
import Foundation

/// Loading and saving a keychain file (or a device-state file): binary property
/// lists, 0600, replaced atomically by ``AtomicFile`` under a ``FileCoordinator``
/// write lock, so that app and extension processes never lose each other's
/// changes. Reads take no lock: an atomic rename means a reader sees the old file or
/// the new one, and the decoded content is cached by file identity (one lstat).
enum KeychainFile {
    /// The largest keychain file read (16 MiB); a keychain holds small secrets.
    static let readLimit: Int64 = 16 << 20

    private static let cache = ContentCache()

    /// The keychain content at `url`; empty when no file exists yet.
    static func load(_ url: URL) throws -> KeychainFileContent {
        try mapErrors(url) { try loadUncaught(url) }
    }

    /// Runs `body` on the current content under the write lock and saves what it
    /// leaves, unless it throws (then nothing is written).
    static func modify<T>(_ url: URL, timeout: TimeInterval?, _ body: (inout KeychainFileContent) throws -> T) throws -> T {
        try mapErrors(url) {
            try FileCoordinator(timeout: timeout).coordinate(writingItemAt: url, options: .forMerging) { url in
                try modifyLocked(url, body)
            }
        }
    }

    /// As ``modify(_:timeout:_:)``, for a caller already holding the write lock.
    static func modifyLocked<T>(_ url: URL, _ body: (inout KeychainFileContent) throws -> T) throws -> T {
        var content = try loadUncaught(url)
        let result = try body(&content)
        let data: Data
        do {
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            data = try encoder.encode(content)
        } catch {
            throw KeychainError.notAvailable(problem: "the keychain content could not be encoded (\(type(of: error))); nothing was written")
        }
        try AtomicFile.write(data, to: url, durable: true)
        if let identity = try AtomicFile.identity(of: url) { cache.store(url.path, identity, content) }
        return result
    }

    private static func loadUncaught(_ url: URL) throws -> KeychainFileContent {
        if let identity = try AtomicFile.identity(of: url), let cached = cache.content(url.path, identity) { return cached }
        guard let (data, identity) = try AtomicFile.readWithIdentity(url, limit: readLimit) else { return KeychainFileContent() }
        if let problem = PropertyListScreen.problem(in: data) {
            throw KeychainError.invalidKeychain(path: url.path, problem: problem)
        }
        let content: KeychainFileContent
        do {
            content = try PropertyListDecoder().decode(KeychainFileContent.self, from: data)
        } catch {
            throw KeychainError.invalidKeychain(path: url.path, problem: "not a keychain property list (\(data.count) bytes)")
        }
        guard content.format <= KeychainFileContent.currentFormat else {
            throw KeychainError.invalidKeychain(path: url.path, problem: "format \(content.format) was written by a newer version of SharedKeychain")
        }
        cache.store(url.path, identity, content)
        return content
    }

    /// Reads a small Codable file (the device state), nil when absent.
    static func loadValue<T: Decodable>(_ type: T.Type, from url: URL) throws -> T? {
        try mapErrors(url) {
            guard let data = try AtomicFile.read(url, limit: 1 << 20) else { return nil }
            if let problem = PropertyListScreen.problem(in: data) {
                throw KeychainError.invalidKeychain(path: url.path, problem: problem)
            }
            do {
                return try PropertyListDecoder().decode(T.self, from: data)
            } catch {
                throw KeychainError.invalidKeychain(path: url.path, problem: "not a device-state property list (\(data.count) bytes)")
            }
        }
    }

    /// Saves a small Codable file atomically (caller holds its write lock).
    static func saveValue<T: Encodable>(_ value: T, to url: URL) throws {
        try mapErrors(url) {
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            guard let data = try? encoder.encode(value) else {
                throw KeychainError.notAvailable(problem: "\(T.self) could not be encoded; nothing was written")
            }
            try AtomicFile.write(data, to: url, durable: true)
        }
    }

    /// Makes `directory` (0700, with missing parents), refusing a symbolic link or a
    /// file standing in its place.
    static func makeDirectory(_ directory: URL) throws {
        let fm = FileManager.default
        let path = directory.path
        if (try? fm.attributesOfItem(atPath: path)) == nil {
            do {
                try fm.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                // Another process may have made it a moment ago: checked below.
                if (try? fm.attributesOfItem(atPath: path)) == nil {
                    throw KeychainError.storage(.invalidRoot(path: path, problem: "cannot create the keychain directory: \(error.localizedDescription)"))
                }
            }
            try? fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
        }
        // attributesOfItem does not follow a final symbolic link (lstat).
        let type = (try? fm.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
        guard type == .typeDirectory else {
            throw KeychainError.storage(.unsafePath(path: path, problem: "a \(type.map { "\($0.rawValue)" } ?? "missing entry") stands where the keychain directory belongs; remove it"))
        }
    }

    /// Maps the foundation's errors to ``KeychainError/storage(_:)``; keychain errors pass.
    static func mapErrors<T>(_ url: URL, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as KeychainError {
            throw error
        } catch let error as AppGroupError {
            throw KeychainError.storage(error)
        } catch {
            throw KeychainError.notAvailable(problem: "\(url.path): \(error.localizedDescription)")
        }
    }
}

/// Decoded keychain contents by path, valid while the file's identity is unchanged
/// (an atomic save always makes a new inode).
final class ContentCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: (AtomicFile.Identity, KeychainFileContent)] = [:]

    func content(_ path: String, _ identity: AtomicFile.Identity) -> KeychainFileContent? {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[path], entry.0 == identity else { return nil }
        return entry.1
    }

    func store(_ path: String, _ identity: AtomicFile.Identity, _ content: KeychainFileContent) {
        lock.lock()
        defer { lock.unlock() }
        if entries.count > 64 { entries.removeAll() }
        entries[path] = (identity, content)
    }
}
