import AppGroupContainer
import Foundation
import PropertyLists

/// Loading and saving a keychain file (or a small device file: its state, its
/// biometric sensor): binary property lists (XML ones of earlier versions still
/// load), 0600, replaced atomically under the device's keychain write lock (see
/// `KeychainDevice+Store.swift`), so that app and extension processes never lose
/// each other's changes. Reads take no lock:
/// an atomic rename means a reader sees the old file or the new one, and the
/// decoded content is cached by file identity (one lstat).
///
/// Every access, read or write, opens the file's directory (an access group's, or `<root>/Devices`) afresh as a
/// ``DirectoryHandle`` (no symbolic link followed, the process's own directory
/// only) and reaches the file relative to it: nothing is ever read from or written
/// outside the root, whatever is swapped in between two calls. Files are read and
/// written by the package's own property-list codec (`PropertyListCodec`, with
/// its limits on size, nesting and values), never by Foundation's, so a planted file
/// is `errSecInvalidKeychain`, never a crash.
///
/// Binary (`bplist00`): the codec's writer shares a string object only between
/// strings with the same code units, so accounts "caf\u{E9}" and "cafe\u{301}" stay
/// two accounts (Foundation's binary encoder would merge them, which is why earlier
/// versions wrote XML). XML files written by earlier versions still load, and are
/// rewritten as binary at the next change.
enum KeychainFile {
    /// The largest keychain file read (16 MiB); a keychain holds small secrets.
    static let readLimit: Int64 = 16 << 20
    /// The largest device-state file read (1 MiB; a real one is under 200 bytes).
    static let valueReadLimit: Int64 = 1 << 20

    private static let cache = ContentCache()

    /// What a caller checks of a file's content when it is read from disk (not
    /// when it comes from the cache, which holds only content that passed): throws
    /// to refuse the file.
    typealias Validator = (KeychainFileContent, URL) throws -> Void

    /// The keychain content at `url`; empty when no file exists yet.
    static func load(_ url: URL, below root: ContainerRoot, validate: Validator? = nil) throws -> KeychainFileContent {
        try mapErrors(url) {
            guard let directory = try DirectoryHandle.open(url.deletingLastPathComponent(), below: root) else { return KeychainFileContent() }
            return try load(url, in: directory, validate: validate)
        }
    }

    /// ``load(_:below:validate:)`` of the file `name` in the directory at the
    /// standardized path `directoryPath`: a reader of several files (one per access
    /// group) builds and standardizes no URL while the files are cached.
    static func load(directoryPath: String, name: String, below root: ContainerRoot, validate: Validator?) throws -> KeychainFileContent {
        let path = directoryPath + "/" + name
        do {
            guard let directory = try DirectoryHandle.open(standardizedPath: directoryPath, below: root) else { return KeychainFileContent() }
            if let identity = try directory.identity(of: name), let cached = cache.content(path, identity) { return cached }
        } catch {
            throw KeychainError.storage(error)
        }
        return try load(URL(fileURLWithPath: path), below: root, validate: validate)
    }

    /// The content at `url` for a caller holding its write lock (empty when the
    /// file or its directory is absent), after removing the temporaries of writers
    /// killed mid-save: under the lock no live writer has one.
    static func loadLocked(_ url: URL, below root: ContainerRoot, validate: Validator?) throws -> KeychainFileContent {
        try mapErrors(url) {
            guard let directory = try DirectoryHandle.open(url.deletingLastPathComponent(), below: root) else { return KeychainFileContent() }
            directory.removeTemporaries(of: url.lastPathComponent, holdingWriteLock: true)
            return try load(url, in: directory, validate: validate)
        }
    }

    /// Saves `content` at `url` atomically, for a caller holding its write lock.
    static func saveLocked(_ content: KeychainFileContent, to url: URL, below root: ContainerRoot) throws {
        try mapErrors(url) {
            let directory = try requireDirectory(url, below: root)
            let data: Data
            do {
                data = try PropertyListCodec.write(PropertyListTreeEncoder().encode(content), format: .binary)
            } catch {
                throw KeychainError.notAvailable(problem: "the keychain content could not be encoded (\(type(of: error))); nothing was written")
            }
            try directory.write(data, to: url.lastPathComponent, durable: true)
            if let identity = try directory.identity(of: url.lastPathComponent) { cache.store(url.path, identity, content) }
        }
    }

    private static func load(_ url: URL, in directory: DirectoryHandle, validate: Validator?) throws -> KeychainFileContent {
        let name = url.lastPathComponent
        if let identity = try directory.identity(of: name), let cached = cache.content(url.path, identity) { return cached }
        // A file not cached yet is read whole anyway: a listing then costs little, and
        // a process that only reads also clears what killed writers left.
        directory.removeTemporaries(of: name, holdingWriteLock: false)
        guard let (data, identity) = try directory.read(name, limit: readLimit) else { return KeychainFileContent() }
        let content = try decode(KeychainFileContent.self, from: data, url: url, kind: "keychain")
        guard content.format <= KeychainFileContent.currentFormat else {
            throw KeychainError.invalidKeychain(path: url.path, problem: "format \(content.format) was written by a newer version of SharedKeychain")
        }
        try validate?(content, url)
        cache.store(url.path, identity, content)
        return content
    }

    /// Reads a small Codable file (the device state, the biometric sensor), nil when absent.
    static func loadValue<T: Decodable>(_ type: T.Type, from url: URL, below root: ContainerRoot) throws -> T? {
        try mapErrors(url) {
            guard let directory = try DirectoryHandle.open(url.deletingLastPathComponent(), below: root),
                  let (data, _) = try directory.read(url.lastPathComponent, limit: valueReadLimit) else { return nil }
            return try decode(T.self, from: data, url: url, kind: String(describing: T.self))
        }
    }

    /// Decodes a file's bytes with the package's codec; a file that is not a
    /// property list, or not one of `T`'s shape, is `errSecInvalidKeychain` saying why.
    private static func decode<T: Decodable>(_ type: T.Type, from data: Data, url: URL, kind: String) throws -> T {
        let tree: PropertyListTree
        do {
            tree = try PropertyListCodec.read(data)
        } catch {
            throw KeychainError.invalidKeychain(path: url.path, problem: "not a \(kind) property list (\(data.count) bytes): \(error.message)")
        }
        do {
            return try PropertyListTreeDecoder().decode(T.self, from: tree)
        } catch {
            throw KeychainError.invalidKeychain(path: url.path, problem: "not a \(kind) property list (\(data.count) bytes): it does not hold a \(kind) file's values (\(error))")
        }
    }

    /// Saves a small Codable file atomically (caller holds its write lock), removing
    /// killed writers' temporaries of it first.
    static func saveValue<T: Encodable>(_ value: T, to url: URL, below root: ContainerRoot) throws {
        try mapErrors(url) {
            guard let data = try? PropertyListCodec.write(PropertyListTreeEncoder().encode(value), format: .binary) else {
                throw KeychainError.notAvailable(problem: "\(T.self) could not be encoded; nothing was written")
            }
            let directory = try requireDirectory(url, below: root)
            directory.removeTemporaries(of: url.lastPathComponent, holdingWriteLock: true)
            try directory.write(data, to: url.lastPathComponent, durable: true)
        }
    }

    /// Removes the file at `url` (caller holds its write lock); false when absent.
    @discardableResult
    static func remove(_ url: URL, below root: ContainerRoot) throws -> Bool {
        try mapErrors(url) {
            guard let directory = try DirectoryHandle.open(url.deletingLastPathComponent(), below: root) else { return false }
            directory.removeTemporaries(of: url.lastPathComponent, holdingWriteLock: true)
            return try directory.remove(url.lastPathComponent)
        }
    }

    /// The directory holding `url`, which ``makeDirectory(_:below:)`` made before the lock was taken.
    private static func requireDirectory(_ url: URL, below root: ContainerRoot) throws -> DirectoryHandle {
        let path = url.deletingLastPathComponent()
        guard let directory = try DirectoryHandle.open(path, below: root) else {
            throw KeychainError.storage(.unsafePath(path: path.path, problem: "the keychain directory disappeared while a change was being made; nothing was written, try again"))
        }
        return directory
    }

    /// Makes `directory` (0700, with missing parents), refusing a symbolic link, a
    /// file standing in its place or another user's directory. Makes the root's
    /// coordination tree too, before anything below the root is coordinated.
    static func makeDirectory(_ directory: URL, below root: ContainerRoot) throws {
        try mapErrors(directory) {
            defer { CoordinationTree.ensurePrepared(root) }
            if try DirectoryHandle.open(directory, below: root) != nil { return }
            var failure = ""
            do {
                try DirectoryHandle.makeDirectories(directory)
            } catch {
                // Another process may have made it a moment ago: checked below.
                failure = ": \(error)"
            }
            guard try DirectoryHandle.open(directory, below: root) != nil else {
                throw KeychainError.storage(.invalidRoot(path: directory.path, problem: "cannot create the keychain directory" + failure))
            }
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
