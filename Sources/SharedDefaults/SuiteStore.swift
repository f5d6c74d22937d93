import AppGroupContainer
import Foundation
import PropertyLists

/// The suite file on disk, its parsed cache, and the read-modify-write cycle.
///
/// Reads take no file lock: writers replace the file with an atomic rename, so a
/// reader opens either the old inode or the new one, never a torn file. A read
/// costs one lstat(2) when nothing changed: the parsed suite is cached with the
/// identity (device, inode, size, ctime) of the file it came from, and an atomic
/// save always makes a new inode (after a read that found a change, the next one
/// opens the file and compares its fstat instead: see `expectingChange`). Only a
/// changed identity triggers a re-read: the
/// new file is checked whole, its first keys read are decoded alone, and it is
/// decoded whole when more are needed (see `Cache`). The cache keeps the parsed
/// file open (an `AtomicFile.Pin`), so its inode number cannot be handed to a
/// newer file while the cache trusts it.
///
/// Writes run under the suite's ``FileCoordinator`` write lock: revalidate the
/// cache (re-read only if another process saved meanwhile), apply the change,
/// serialize once, save atomically and durably, and cache what was saved.
final class SuiteStore: @unchecked Sendable {
    /// What iOS and macOS refuse: a domain whose plist reaches 4 MiB.
    static let sizeLimit = 4_194_304

    let fileURL: URL
    let path: String
    /// The device root the file lies under (no symbolic link followed below it).
    let root: ContainerRoot
    let coordinator: FileCoordinator
    /// `path` is absolute and standard, found once (see `AtomicFile.isStandardPath`).
    private let pathIsStandard: Bool
    let durable: Bool
    let format: PropertyListSerialization.PropertyListFormat

    /// A class, so that installing, retiring and reading it moves one reference:
    /// as a struct, each hand-off copied and destroyed every field (a noticeable
    /// share of a read after another process's save). Unchecked Sendable:
    /// changed only under `lock` while current; once retired, only released.
    private final class Cache: @unchecked Sendable {
        /// The file the values came from, kept open; nil when there was no file.
        var pin: AtomicFile.Pin?
        var identity: AtomicFile.Identity? { pin?.identity }
        /// Keys exactly as the file spells them (see `PropertyListDictionary`);
        /// nil while the file is only checked (see `checked`).
        var values: PropertyListDictionary?
        /// A binary file checked whole but not decoded: after another process's
        /// save, the first few keys read (``keysReadAlone``) decode their values
        /// alone (a read after a change then costs about half a full decode); the
        /// next key decodes everything, as every write does.
        var checked: Data?
        /// The keys read alone from `checked`, with their values (nil: absent).
        var readAlone: [(key: ExactKey, value: PropertyListTree?)] = []
        /// Set when that file was corrupt (values is then empty).
        var problem: SharedDefaultsError?
        /// The binary encoding of `values` when this process wrote the file: the
        /// next save re-encodes only what it changes (see
        /// `BinaryPropertyListEncoding`). Only writers touch it, under the file lock.
        var encoding: BinaryPropertyListEncoding?

        init(pin: AtomicFile.Pin?, values: PropertyListDictionary?, checked: Data? = nil, problem: SharedDefaultsError?) {
            self.pin = pin
            self.values = values
            self.checked = checked
            self.problem = problem
        }

        /// The values, decoding a checked file first.
        func decoded(path: String) -> PropertyListDictionary {
            if let values { return values }
            var decoded = PropertyListDictionary()
            if let checked {
                switch SuiteStore.parseExact(checked) {
                case .success(let values): decoded = values
                // Cannot happen to checked bytes; if it did, the file is corrupt after all.
                case .failure(let problem): self.problem = .corruptSuite(path: path, problem: problem.text, movedTo: nil)
                }
            }
            values = decoded
            checked = nil
            readAlone = []
            return decoded
        }
    }

    // Guards `cache`, `retired`, `parses`, `wholeEncodes` and `expectingChange`; never held across a file lock.
    private let lock = NSLock()
    private var cache: Cache?
    /// Set when the last refresh found another process's save: the next one then
    /// opens the file at once (open, fstat), which finds a change in one path walk
    /// instead of an lstat and then the open; it costs an open, fstat and close
    /// instead of an lstat when the file did not change after all, and is cleared.
    private var expectingChange = false
    private var parses = 0
    /// Caches replaced by reads, not yet handed to the background (see `retire`).
    private var retired: [Cache] = []
    private var retiredBytes: Int64 = 0

    /// A read hands replaced caches to the background this many at a time, or
    /// sooner once their files reach ``retiredByteLimit``: waking the background
    /// queue cost a fifth of a read after another process's save, and most of
    /// what it frees is a replaced file's blocks, which a few kept open a little
    /// longer do not make scarce.
    static let retiredBatch = 8

    /// Keys a changed file answers one by one before it is decoded whole: each
    /// costs a pass over the file's keys, a tenth of a full decode at any size.
    static let keysReadAlone = 4
    static let retiredByteLimit: Int64 = 256 << 10

    /// How many times this store has read and parsed the file (for tests: an
    /// unchanged suite must never be parsed twice).
    var parseCount: Int { lock.withLock { parses } }

    /// How many binary saves encoded the whole suite rather than the kept encoding's
    /// changes (for tests: saves in a row through one store re-encode only what changed).
    var wholeEncodeCount: Int { lock.withLock { wholeEncodes } }
    private var wholeEncodes = 0

    init(fileURL: URL, root: ContainerRoot, coordinator: FileCoordinator, durable: Bool, format: PropertyListSerialization.PropertyListFormat) {
        self.fileURL = fileURL
        self.root = root
        self.path = fileURL.path
        pathIsStandard = AtomicFile.isStandardPath(path)
        self.coordinator = coordinator
        self.durable = durable
        self.format = format
    }

    deinit {
        if !retired.isEmpty { AtomicFile.releaseInBackground(retired) }
    }

    // MARK: Reading

    /// Runs `body` on the latest committed values (any process's).
    /// - Throws: ``SharedDefaultsError/corruptSuite(path:problem:movedTo:)`` for a corrupt
    ///   file, ``SharedDefaultsError/fileSystem(path:reason:)`` when it cannot be read.
    func withCurrentValues<T>(_ body: (PropertyListDictionary) throws -> T) throws -> T {
        if closedUntilFirstUnlock("read") { return try body(PropertyListDictionary()) }
        lock.lock()
        defer { lock.unlock() }
        try refreshLocked()
        let values = cache?.decoded(path: path) ?? PropertyListDictionary()
        if let problem = cache?.problem { throw problem }
        return try body(values)
    }

    /// The value stored under exactly `key` in the latest committed values (any
    /// process's): ``withCurrentValues(_:)`` for one key, which after another
    /// process's save decodes only that key's value.
    /// - Throws: as ``withCurrentValues(_:)``.
    func currentValue(forKey key: String) throws -> PropertyListTree? {
        if closedUntilFirstUnlock("read") { return nil }
        lock.lock()
        defer { lock.unlock() }
        try refreshLocked(lookingUp: key)
        guard let cache else { return nil }
        if let problem = cache.problem { throw problem }
        if let values = cache.values { return values[key] }
        if let checked = cache.checked {
            let exact = ExactKey(key)
            if let known = cache.readAlone.first(where: { $0.key == exact }) { return known.value }
            if cache.readAlone.count < Self.keysReadAlone {
                // Checked whole, so the value cannot meet damage; if it did, decode all.
                do {
                    let value = try BinaryPropertyListReader.value(forKey: key, inCheckedDictionary: checked)
                    cache.readAlone.append((exact, value))
                    return value
                } catch {}
            }
        }
        // One key more from the same file: decode it whole, once.
        let values = cache.decoded(path: path)
        if let problem = cache.problem { throw problem }
        return values[key]
    }

    /// Makes `cache` describe the file as it is now (one lstat when nothing changed;
    /// a read and a check when it did, which also reads `key` alone from a binary
    /// file). Called with `lock` held.
    private func refreshLocked(lookingUp key: String? = nil) throws {
        var opened: (data: Data, pin: AtomicFile.Pin)?
        if expectingChange, cache != nil {
            switch try? AtomicFile.readPinned(atPath: path, below: root, unlessIdentity: cache?.identity, standard: pathIsStandard) {
            case .unchanged?:
                expectingChange = false
                return
            case .changed(let data, let pin)?:
                opened = (data, pin)
            case nil:
                // No file, or an error: the lstat below decides, as on any read,
                // and throws what it would have thrown.
                break
            }
        }
        if opened == nil {
            let identity = try currentIdentity()
            if let cache, cache.identity == identity {
                expectingChange = false
                return
            }
        }
        let span = Tracing.begin(.suiteRead)
        let fresh = try opened.map { parse($0, lookingUp: key) } ?? load(lookingUp: key)
        span?.end(path, [("key", key ?? "(all)"), ("version", Self.traceVersion(fresh.identity))],
                  flowIn: fresh.identity.map { Self.flowID(path, $0) })
        if fresh.pin != nil { parses += 1 }
        expectingChange = fresh.pin != nil && cache != nil
        replaceCache(with: fresh, batching: true)
    }

    /// Installs `fresh` (under `lock`); the cache it replaces is freed off this
    /// thread: a whole suite's values and the close of the replaced file, which
    /// the read that found the change need not wait for. A read (`batching`)
    /// retires it with others (``retiredBatch``); a write, which waits for the
    /// disk anyway, hands it over at once.
    private func replaceCache(with fresh: Cache?, batching: Bool) {
        let old = cache
        cache = fresh
        guard let old else { return }
        retired.append(old)
        retiredBytes += old.identity?.size ?? 0
        if !batching || retired.count >= Self.retiredBatch || retiredBytes >= Self.retiredByteLimit {
            AtomicFile.releaseInBackground(retired)
            // Room for a whole batch at once (the array handed over is not reused).
            retired.removeAll(keepingCapacity: true)
            retiredBytes = 0
        }
    }

    private func currentIdentity() throws(SharedDefaultsError) -> AtomicFile.Identity? {
        do {
            // By the stored path: URL.path would cost twice the lstat on every read.
            return try AtomicFile.identity(atPath: path, below: root)
        } catch {
            throw .fileSystem(path: path, reason: error)
        }
    }

    /// Reads and parses the file. A corrupt file is not an error here: it is a
    /// cache entry carrying its problem, so it is diagnosed once per file version.
    private func load(lookingUp key: String? = nil) throws -> Cache {
        let read: (data: Data, pin: AtomicFile.Pin)?
        do {
            read = try AtomicFile.readPinned(atPath: path, below: root, standard: pathIsStandard)
        } catch {
            throw SharedDefaultsError.fileSystem(path: path, reason: error)
        }
        guard let read else { return Cache(pin: nil, values: PropertyListDictionary(), problem: nil) }
        return parse(read, lookingUp: key)
    }

    /// The cache of the file `read` holds (see ``load(lookingUp:)``).
    private func parse(_ read: (data: Data, pin: AtomicFile.Pin), lookingUp key: String?) -> Cache {
        if BinaryPropertyListReader.isBinary(read.data) {
            // Binary: checked whole now (a damaged file is found here, as a full
            // decode would find it), values decoded when first needed.
            do {
                let (root, value) = try BinaryPropertyListReader.check(read.data, lookingUp: key)
                guard case .dictionary = root else {
                    return Cache(pin: read.pin, values: PropertyListDictionary(),
                                 problem: .corruptSuite(path: path, problem: Self.notADictionary(root), movedTo: nil))
                }
                let cache = Cache(pin: read.pin, values: nil, checked: read.data, problem: nil)
                if let key { cache.readAlone.append((ExactKey(key), value)) }
                return cache
            } catch {
                return Cache(pin: read.pin, values: PropertyListDictionary(),
                             problem: .corruptSuite(path: path, problem: error.message, movedTo: nil))
            }
        }
        switch Self.parseExact(read.data) {
        case .success(let values):
            return Cache(pin: read.pin, values: values, problem: nil)
        case .failure(let problem):
            return Cache(pin: read.pin, values: PropertyListDictionary(),
                         problem: .corruptSuite(path: path, problem: problem.text, movedTo: nil))
        }
    }

    struct ParseProblem: Error { let text: String }

    /// The suite a file holds, keys exactly as written. Read by this package's
    /// own codec, not Foundation's: Foundation merges keys that differ only in
    /// Unicode normalization, and Apple's platforms keep them apart.
    static func parseExact(_ data: Data) -> Result<PropertyListDictionary, ParseProblem> {
        let root: PropertyListTree
        do {
            root = try PropertyListCodec.read(data)
        } catch {
            return .failure(ParseProblem(text: error.message))
        }
        guard case .dictionary(let values) = root else { return .failure(ParseProblem(text: notADictionary(root))) }
        return .success(values)
    }

    private static func notADictionary(_ root: PropertyListTree) -> String {
        "its root is a \(root.kind), not a dictionary"
    }

    /// ``parseExact(_:)`` in canonical Swift values (of keys equal as Swift strings,
    /// the first in file order).
    static func parse(_ data: Data) -> Result<[String: Any], ParseProblem> {
        parseExact(data).map(CanonicalTree.dictionary)
    }

    // MARK: Writing

    /// The outcome of ``modify(_:)``.
    struct Committed<R> {
        var result: R
        /// Set when a corrupt file was moved aside before the fresh suite was saved.
        var recovered: SharedDefaultsError?
    }

    /// One change a writer makes: the key, exactly as spelled, and its new value
    /// (nil removes it).
    struct Change {
        var key: String
        var value: PropertyListTree?
    }

    /// Runs `body` on the latest values under the suite's write lock, then applies
    /// the changes it returns and saves the result atomically (durably unless
    /// configured otherwise). Nothing is written when `body` throws, its changes
    /// change nothing, or the result is too large.
    ///
    /// `body` may itself write the suite (through this store or another instance
    /// of the same suite: the lock is re-entrant on the thread). Those writes are
    /// committed when they return, so `body`'s changes are applied on top of the
    /// suite as it stands when `body` returns, never on the values `body` was
    /// given: nested writes survive, and `body`'s own changes come after them, in
    /// program order.
    func modify<R>(_ body: (PropertyListDictionary) throws -> (result: R, changes: [Change])) throws -> Committed<R> {
        if closedUntilFirstUnlock("save") { throw SharedDefaultsError.fileSystem(path: path, reason: ProtectedDataGate.refusal(path: path)) }
        do {
            return try coordinator.coordinate(writingItemAt: fileURL, options: .forMerging) { _ in
                try modifyLocked(body)
            }
        } catch let error as AppGroupError {
            throw SharedDefaultsError.fileSystem(path: path, reason: error)
        }
    }

    /// The cache when it still describes the file (one lstat), else a fresh read.
    /// With `takingEncoding`, the cache's encoding too, moved out of it so that the
    /// save changes it in place instead of copying it.
    private func currentLocked(takingEncoding: Bool = false) throws
        -> (values: PropertyListDictionary, problem: SharedDefaultsError?, pin: AtomicFile.Pin?, encoding: BinaryPropertyListEncoding?, from: Cache?) {
        try lock.withLock {
            try refreshLocked()
            let values = cache?.decoded(path: path) ?? PropertyListDictionary()
            var encoding: BinaryPropertyListEncoding?
            if takingEncoding, let cache {
                encoding = cache.encoding
                cache.encoding = nil
            }
            return (values, cache?.problem, cache?.pin, encoding, cache)
        }
    }


    private func modifyLocked<R>(_ body: (PropertyListDictionary) throws -> (result: R, changes: [Change])) throws -> Committed<R> {
        let before = try currentLocked()
        defer { withExtendedLifetime(before.pin) {} }
        let (result, changes) = try body(before.values)
        guard !changes.isEmpty else { return Committed(result: result, recovered: nil) }
        // Only `body` can have written meanwhile (this thread holds the lock); when
        // it did, the file is a new inode (`before` pins the old one, so the
        // number cannot be reused) and is read again.
        var current = try currentLocked(takingEncoding: format == .binary)
        var values = current.values
        // The encoding follows the entries change by change; any doubt (it does
        // not match, a change it cannot take) and the save encodes the whole suite.
        // Moved out of `current`, so that it is changed in place, not copied.
        var encoding: BinaryPropertyListEncoding?
        swap(&encoding, &current.encoding)
        if encoding?.count != values.count { encoding = nil }
        func follow(_ edit: (inout BinaryPropertyListEncoding) throws -> Void) {
            guard encoding != nil else { return }
            do { try edit(&encoding!) } catch { encoding = nil }
        }
        var changed = false
        for change in changes {
            if let value = change.value {
                if let at = values.index(forKey: change.key) {
                    if values.entries[at].value == value { continue }
                    values.setValue(value, at: at)
                    follow { try $0.replaceValue(at: at, with: value) }
                } else {
                    values.set(value, forKey: change.key)
                    follow { try $0.append(key: change.key, value: value) }
                }
                changed = true
            } else if let at = values.index(forKey: change.key) {
                values.removeValue(forKey: change.key)
                follow { $0.remove(at: at) }
                changed = true
            }
        }
        guard changed else {
            // Nothing to save: the encoding goes back to the cache it came from.
            if let kept = encoding { lock.withLock { if cache === current.from { cache?.encoding = kept } } }
            return Committed(result: result, recovered: nil)
        }

        let data: Data
        do {
            guard format != .openStep else {
                throw PropertyListError("the OpenStep format cannot be written (Apple's platforms do not write it either); open the suite with format .binary or .xml")
            }
            if format == .xml {
                data = try PropertyListCodec.write(.dictionary(values), format: .xml)
            } else if let kept = encoding, !kept.needsRebuild {
                data = kept.encode()
            } else {
                (data, encoding) = try BinaryPropertyListEncoding.make(values)
                lock.withLock { wholeEncodes += 1 }
            }
        } catch {
            throw SharedDefaultsError.codingFailed(key: "(whole suite)", type: "property list", problem: "\(error)")
        }
        if data.count >= Self.sizeLimit {
            throw SharedDefaultsError.suiteTooLarge(path: path, size: data.count, limit: Self.sizeLimit)
        }
        var recovered: SharedDefaultsError?
        if case .corruptSuite(_, let problem, _)? = current.problem {
            let aside = try moveAside()
            recovered = .corruptSuite(path: path, problem: problem, movedTo: aside.path)
        }
        let span = Tracing.begin(.suiteSave)
        defer {
            span?.end(path, [("keys", changes.map(\.key).joined(separator: ", ")), ("bytes", "\(data.count)")],
                      flowOut: (try? AtomicFile.identity(atPath: path, below: root)).map { Self.flowID(path, $0) })
        }
        do {
            try AtomicFile.write(data, to: fileURL, below: root, durable: durable)
        } catch {
            // The file may or may not have been replaced: forget the cache.
            lock.withLock { cache = nil }
            throw SharedDefaultsError.fileSystem(path: path, reason: error)
        }
        // Pin what we just saved (one open and fstat, still under the write lock, so
        // it is our file): the next read or write finds the cache valid instead of
        // re-parsing our own file.
        let saved = try? AtomicFile.pin(atPath: path, below: root)
        let committed = values, kept = encoding
        lock.withLock {
            // This process's own save: the next read most likely finds it unchanged.
            expectingChange = false
            replaceCache(with: saved.map {
                let fresh = Cache(pin: $0, values: committed, problem: nil)
                fresh.encoding = kept
                return fresh
            }, batching: false)
        }
        return Committed(result: result, recovered: recovered)
    }

    /// The trace's arrow from the save that wrote a version of the suite file (its
    /// inode: every save renames a new file into place) to the read that found it.
    private static func flowID(_ path: String, _ identity: AtomicFile.Identity) -> UInt64 {
        Tracing.flowID("suite", path, "\(identity.device):\(identity.inode)")
    }

    private static func traceVersion(_ identity: AtomicFile.Identity?) -> String {
        identity.map { "inode \($0.inode)" } ?? "no file"
    }

    /// Moves the corrupt suite file to `<suite>.plist.corrupt-<UTC timestamp>` (a
    /// counter is added if that exists), where a person can inspect it.
    private func moveAside() throws -> URL {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
        let stamp = ".corrupt-" + formatter.string(from: Date())
        let base = fileURL.lastPathComponent + stamp
        let directory = fileURL.deletingLastPathComponent()
        for attempt in 0..<1000 {
            // A long suite's name is shortened (the stamp kept) to fit 255 bytes.
            let suffix = attempt == 0 ? stamp : stamp + "-\(attempt)"
            let name = FileNames.fitted(fileURL.lastPathComponent + suffix, keepingSuffix: suffix)
            let destination = directory.appendingPathComponent(name)
            do {
                // Not durable on its own: the save that follows fsyncs the directory.
                try AtomicFile.move(fileURL, to: destination, below: root, durable: false)
                return destination
            } catch {
                // Something stands at that name: the next one. (Matched here, not
                // in a catch pattern: one on this typed error crashes Swift 6.3.1.)
                guard case .unsafePath = error else { throw SharedDefaultsError.fileSystem(path: path, reason: error) }
                continue
            }
        }
        throw SharedDefaultsError.fileSystem(path: path, reason: .unsafePath(path: directory.appendingPathComponent(base).path,
                                             problem: "a thousand files already stand at that name"))
    }
}

extension SuiteStore {
    /// True in a target launched before the first unlock, until it is told of it:
    /// the suite's file is `completeUntilFirstUserAuthentication` on iOS, so reads
    /// find nothing and saves fail, silently there; here once per suite and
    /// process on standard error, naming the target (the speaker) and the state.
    func closedUntilFirstUnlock(_ operation: String) -> Bool {
        guard let state = ProtectedDataGate.closedUntilFirstUnlock() else { return false }
        Diagnostics.warnOnce(about: "before first unlock \(operation) \(path)",
            "SharedDefaults: a \(operation) of the suite \(path) before the first unlock (the device is \(state)): "
            + (operation == "read" ? "it finds nothing, as on iOS" : "nothing is saved, as on iOS, where the app is not told")
            + ". Wait for UIApplication.protectedDataDidBecomeAvailableNotification before reading or saving shared data.")
        return true
    }
}
