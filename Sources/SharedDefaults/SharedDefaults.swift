import AppGroupContainer
import Foundation
import PropertyLists

/// A defaults suite shared between processes, in the vocabulary of
/// `UserDefaults(suiteName:)`, that never loses an update.
///
/// ```swift
/// let defaults = SharedDefaults(suiteName: "group.ai.systenics.notes")   // private to the target if not entitled
/// defaults?.set("draft-42", forKey: "lastSharedItem")
/// let name = defaults?.string(forKey: "lastSharedItem")
/// try defaults?.update(Int.self, forKey: "shareCount") { ($0 ?? 0) + 1 }
/// ```
///
/// **Where the suite lives.** A suite name that is an App Group identifier is the
/// group's shared suite, `<container>/Library/Preferences/<group>.plist`, as on
/// iOS; an identity not entitled to the group gets a suite of that name private
/// to it, as iOS gives (``isPrivateFallback``). Any other name is a suite
/// private to the identity, under `<root>/Applications/<bundle id>/Library/Preferences/`.
/// `NSGlobalDomain` and the identity's own bundle identifier are refused, as Apple does.
///
/// **Coherence.** Every read returns the latest value any process committed, with
/// no `synchronize()`. An unchanged suite costs one `lstat(2)` per read: the parsed
/// suite is cached by the file's identity and never re-parsed while it stands.
///
/// **Writes** are atomic and durable when they return: under the suite's file
/// lock, the latest suite is re-read if another process changed it, the change
/// applied, and the whole suite saved with an atomic rename. ``update(forKey:_:)``
/// and ``transaction(_:)`` do a read-modify-write under that one lock; a write
/// made inside their closures (through any instance) is kept, and their own
/// changes are applied after it, in program order.
///
/// **Keys** are compared by their exact spelling, as Apple's CFString-keyed
/// dictionaries compare code units: "caf\u{E9}" and "cafe\u{301}" (equal Swift
/// strings) are two keys, and every write keeps both, at the top level and in
/// nested dictionaries. Only the calls that return a Swift `[String: Any]`
/// cannot hold both; they give the first in file order.
///
/// **Failures.** The UserDefaults-shaped calls (`set(_:forKey:)`,
/// ``object(forKey:)``...) cannot throw: a failure is written through
/// `Diagnostics.handler` and kept in ``lastError``. Each has a throwing counterpart
/// (``save(_:forKey:)``, ``load(forKey:)``, ``persistentDomain()``) that reports it
/// to the caller instead.
///
/// Instances are thread-safe. Several instances of one suite, in one process or
/// many, see each other's writes.
public final class SharedDefaults: @unchecked Sendable {
    /// The suite name as given (nil: the identity's own domain).
    public let suiteName: String?
    /// The App Group whose container holds the suite; nil for a suite private to the identity.
    public let groupIdentifier: GroupIdentifier?
    /// The suite's property-list file.
    public let fileURL: URL
    /// True when the suite name is an App Group the identity is not entitled to,
    /// so the suite lives in the identity's own storage and no other target reads
    /// it: what iOS gives such a target (see ``init(suiteName:)``).
    public let isPrivateFallback: Bool
    /// The identity and root the suite was opened for (nil when opened by container).
    let resolver: ContainerResolver?

    let store: SuiteStore

    // Guards `storedLastError` and `lastWarning`.
    private let stateLock = NSLock()
    private var storedLastError: SharedDefaultsError?
    private var lastWarning: String?

    let observers: ObserverHub

    /// Opens the suite for the process's own identity and container root
    /// (`ContainerResolver.current()`), as `UserDefaults(suiteName:)` does.
    ///
    /// As on iOS, a group the identity is not entitled to still gives a usable
    /// suite: one private to the identity, that no other target reads (see
    /// ``isPrivateFallback``); a one-line warning says so. Nil when the name is
    /// refused (`NSGlobalDomain`, the own bundle identifier, a name that cannot be a
    /// file name) or there is no identity; the reason goes through `Diagnostics.handler`.
    /// ``init(requiringSuiteName:resolver:coordinationTimeout:durable:format:)`` throws
    /// instead, and refuses a group the identity lacks.
    public convenience init?(suiteName: String?) {
        self.init(lenientSuiteName: suiteName, call: "SharedDefaults(suiteName: \(Self.quoted(suiteName)))",
                  resolving: { try Self.environmentResolver(suiteName: suiteName) })
    }

    /// Opens the suite for the identity and root of `resolver`, as ``init(suiteName:)``
    /// does (a group the identity lacks gives a private suite, with a warning).
    public convenience init?(suiteName: String?, resolver: ContainerResolver) {
        self.init(lenientSuiteName: suiteName, call: "SharedDefaults(suiteName: \(Self.quoted(suiteName)))", resolving: { resolver })
    }

    /// The lenient opening behind ``init(suiteName:)`` and `UserDefaults(suiteName:)`.
    /// - Parameters:
    ///   - call: the caller's call, which begins each diagnostic line.
    ///   - failure: what the caller does when the suite cannot be opened.
    convenience init?(lenientSuiteName suiteName: String?, call: String, failure: String = "returned nil",
                      resolving: () throws -> ContainerResolver) {
        do {
            let location = try Self.lenientLocation(suiteName: suiteName, resolver: resolving(), call: call)
            self.init(location: location, suiteName: suiteName)
        } catch {
            Diagnostics.warn("\(call) \(failure): \(error)")
            return nil
        }
    }

    /// Where iOS would put the suite: a group the identity lacks becomes a suite
    /// private to it, with a one-line warning.
    private static func lenientLocation(suiteName: String?, resolver: ContainerResolver, call: String) throws -> SuiteLocation {
        let location = try SuiteLocation.resolve(suiteName: suiteName, resolver: resolver, privateWhenNotEntitled: true)
        if let reason = location.privateBecause {
            Diagnostics.warn("\(call): \(reason) Until then this suite is private to "
                             + "\(resolver.entitlements.bundleIdentifier) (\(location.fileURL.path)): no other target reads what it writes, "
                             + "and it reads nothing they write, as on iOS.", kind: .privateSuite)
        }
        return location
    }

    static func quoted(_ suiteName: String?) -> String { suiteName.map { "\"\($0)\"" } ?? "nil" }

    /// Opens the suite at a resolved location, with the defaults of the throwing initializer.
    convenience init(location: SuiteLocation, suiteName: String?) {
        self.init(location: location, suiteName: suiteName, coordinator: FileCoordinator(timeout: 30), durable: true, format: .binary)
    }

    /// Opens the suite, or says why it cannot: the strict form, for code and tests
    /// that want a missing entitlement as an error rather than iOS's private suite.
    /// - Parameters:
    ///   - suiteName: an App Group identifier for the group's shared suite; another
    ///     name for a suite private to the identity; nil for the identity's own domain.
    ///   - resolver: the identity and container root; nil reads both from the environment.
    ///   - coordinationTimeout: how long a write waits, in seconds, for another
    ///     process's write of the suite before it fails
    ///     (``SharedDefaultsError/fileSystem(path:reason:)`` with
    ///     `AppGroupError.coordinationTimedOut`); nil waits as long as it takes.
    ///   - durable: fsync each save (the default). False trades crash safety for
    ///     speed: a crash may lose recent writes, never tear the file.
    ///   - format: the format written; binary, as iOS writes, by default. Reads
    ///     accept any format.
    /// - Throws: ``SharedDefaultsError/invalidSuiteName(_:problem:)`` for `NSGlobalDomain`,
    ///   the identity's own bundle identifier or a name that cannot be a file name;
    ///   ``SharedDefaultsError/suiteUnavailable(suite:reason:)`` when the identity is not
    ///   entitled to the group (the reason names the groups it holds and the fix), the
    ///   identifier is invalid or the container cannot be made.
    public convenience init(requiringSuiteName suiteName: String?, resolver: ContainerResolver? = nil,
                            coordinationTimeout: TimeInterval? = 30, durable: Bool = true,
                            format: PropertyListSerialization.PropertyListFormat = .binary) throws {
        let chosen: ContainerResolver
        if let resolver { chosen = resolver } else { chosen = try Self.environmentResolver(suiteName: suiteName) }
        let location = try SuiteLocation.resolve(suiteName: suiteName, resolver: chosen)
        self.init(location: location, suiteName: suiteName, coordinator: FileCoordinator(timeout: coordinationTimeout),
                  durable: durable, format: format)
    }

    /// Opens the suite at an already resolved location.
    init(location: SuiteLocation, suiteName: String?, coordinator: FileCoordinator, durable: Bool,
         format: PropertyListSerialization.PropertyListFormat) {
        self.suiteName = suiteName
        self.groupIdentifier = location.group
        self.isPrivateFallback = location.privateBecause != nil
        self.resolver = location.resolver
        self.fileURL = location.fileURL
        self.store = SuiteStore(fileURL: location.fileURL, root: location.root, coordinator: coordinator, durable: durable, format: format)
        self.observers = ObserverHub(directory: location.directory, fileName: location.fileURL.lastPathComponent)
        // Temporary files of writers killed mid-save (over a minute old, so never a
        // live writer's) would otherwise stay forever.
        AtomicFile.removeStaleTemporaries(in: location.directory, below: location.root, for: location.fileURL.lastPathComponent)
    }

    static func environmentResolver(suiteName: String?) throws(SharedDefaultsError) -> ContainerResolver {
        do {
            return try ContainerResolver.resolvingCurrent()
        } catch {
            throw .suiteUnavailable(suite: suiteName ?? "(own domain)", reason: error)
        }
    }

    // MARK: Failures of the non-throwing calls

    /// The most recent failure of a call that cannot throw (a refused value, a disk
    /// error, a corrupt file met by a read, a corrupt file a write moved aside).
    /// Sticky: a later success does not clear it; ``clearLastError()`` does. Each
    /// failure is also written through `Diagnostics.handler`.
    public var lastError: SharedDefaultsError? { stateLock.withLock { storedLastError } }

    /// Forgets ``lastError``.
    public func clearLastError() { stateLock.withLock { storedLastError = nil } }

    /// Records a failure of a non-throwing call and warns (once per distinct message
    /// in a row, so a corrupt file read in a loop does not flood standard error).
    func report(_ error: Error, during operation: String) {
        // Every path that reaches here throws SharedDefaultsError; an AppGroupError is
        // wrapped, and anything else is kept as a coding failure rather than dropped.
        let defaultsError = error as? SharedDefaultsError
            ?? (error as? AppGroupError).map { .fileSystem(path: fileURL.path, reason: $0) }
            ?? .codingFailed(key: "(\(operation))", type: "\(type(of: error))", problem: "\(error)")
        let message = "\(operation): \(defaultsError)"
        let shouldWarn = stateLock.withLock { () -> Bool in
            storedLastError = defaultsError
            defer { lastWarning = message }
            return lastWarning != message
        }
        if shouldWarn { Diagnostics.warn(message) }
    }

    // MARK: Registration domain

    /// Adds `registrationDictionary` to the registration domain: values returned
    /// for keys a suite does not hold. As on Apple's platforms the domain is the
    /// process's: every SharedDefaults instance of this process sees it, whatever
    /// its suite; no other process does, and it is never written to a file. A
    /// non-property-list value registers nothing and is reported through ``lastError``.
    public func register(defaults registrationDictionary: [String: Any]) {
        var normalized: [String: Any] = [:]
        do {
            for (key, value) in registrationDictionary { normalized[key] = try PropertyListValue.normalize(value, key: key) }
        } catch {
            report(error, during: "register(defaults:)")
            return
        }
        RegistrationDomain.shared.register(normalized)
    }

    func registeredValue(forKey key: String) -> Any? { RegistrationDomain.shared.value(forKey: key) }

    // MARK: Reading

    /// The value for `key`: the suite's, else the registered default, else nil.
    /// A corrupt or unreadable suite reads as empty (reported through ``lastError``);
    /// ``load(forKey:)`` throws instead.
    public func object(forKey defaultName: String) -> Any? {
        do {
            return try load(forKey: defaultName)
        } catch {
            report(error, during: "object(forKey: \"\(defaultName)\")")
            return registeredValue(forKey: defaultName)
        }
    }

    /// The value for `key` (the suite's, else the registered default, else nil).
    /// - Throws: ``SharedDefaultsError/corruptSuite(path:problem:movedTo:)`` or
    ///   ``SharedDefaultsError/fileSystem(path:reason:)``.
    ///
    /// Keys are matched by their exact spelling, as Apple's platforms match them:
    /// "caf\u{E9}" and "cafe\u{301}" are two keys with values of their own.
    public func load(forKey defaultName: String) throws -> Any? {
        try SharedDefaultsError.passingUp(path: fileURL.path) { try persistentValue(forKey: defaultName) ?? registeredValue(forKey: defaultName) }
    }

    /// The suite's own value for `key` (no registered default), canonical.
    func persistentValue(forKey defaultName: String) throws -> Any? {
        try store.currentValue(forKey: defaultName).map(CanonicalTree.value)
    }

    /// The suite's own values, without the registration domain (Apple's
    /// `persistentDomain(forName:)` for this suite).
    ///
    /// A Swift dictionary cannot hold two keys that differ only in Unicode
    /// normalization (they are equal Swift strings); where the suite holds both
    /// (written by another process), this gives the first in file order. The
    /// suite itself keeps both: ``storedKeys()`` lists them and ``load(forKey:)``
    /// reads each.
    /// - Throws: as ``load(forKey:)``.
    public func persistentDomain() throws -> [String: Any] {
        try SharedDefaultsError.passingUp(path: fileURL.path) { try store.withCurrentValues { CanonicalTree.dictionary($0) } }
    }

    /// Every key the suite holds, spelled exactly as stored, in file order: keys
    /// that differ only in Unicode normalization are listed once each.
    /// - Throws: as ``load(forKey:)``.
    public func storedKeys() throws -> [String] {
        try SharedDefaultsError.passingUp(path: fileURL.path) { try store.withCurrentValues { $0.keys } }
    }

    /// The registration domain overlaid with the suite's values: every key a read
    /// would find. A corrupt suite contributes nothing (reported through ``lastError``).
    /// Of keys that differ only in Unicode normalization, the suite's first in file
    /// order (see ``persistentDomain()``).
    public func dictionaryRepresentation() -> [String: Any] {
        var result = RegistrationDomain.shared.snapshot
        do {
            let persistent = try persistentDomain()
            result.merge(persistent) { _, stored in stored }
        } catch {
            report(error, during: "dictionaryRepresentation()")
        }
        return result
    }

    /// A string; a number becomes its string value (123 → "123"). Nil otherwise.
    public func string(forKey defaultName: String) -> String? {
        // A stored string is answered from the decoded entry itself: going through
        // `object(forKey:)` boxed it as `Any` and cast it back. Anything
        // else takes the same way as `object(forKey:)`, errors and defaults alike.
        do {
            let stored = try SharedDefaultsError.passingUp(path: fileURL.path) { try store.currentValue(forKey: defaultName) }
            if case .string(let string)? = stored { return string }
            return Conversions.string(stored.map(CanonicalTree.value) ?? registeredValue(forKey: defaultName))
        } catch {
            report(error, during: "object(forKey: \"\(defaultName)\")")
            return Conversions.string(registeredValue(forKey: defaultName))
        }
    }
    /// An array; nil when missing or not an array.
    public func array(forKey defaultName: String) -> [Any]? { object(forKey: defaultName) as? [Any] }
    /// A dictionary; nil when missing or not a dictionary. Of nested keys that
    /// differ only in Unicode normalization (a Swift dictionary cannot hold both),
    /// the first in file order; the suite keeps both.
    public func dictionary(forKey defaultName: String) -> [String: Any]? { object(forKey: defaultName) as? [String: Any] }
    /// Data; nil when missing or not data.
    public func data(forKey defaultName: String) -> Data? { object(forKey: defaultName) as? Data }
    /// An array of strings; nil when missing, not an array, or any element is not a string.
    public func stringArray(forKey defaultName: String) -> [String]? { Conversions.stringArray(object(forKey: defaultName)) }
    /// An integer, 0 when missing. A Bool is 1 or 0, a real rounds down (2.67 → 2),
    /// a string holding a number is that number ("12" → 12); anything else 0.
    public func integer(forKey defaultName: String) -> Int { Conversions.integer(object(forKey: defaultName)) }
    /// A Float, 0 when missing; coerced as ``double(forKey:)``.
    public func float(forKey defaultName: String) -> Float { Float(Conversions.double(object(forKey: defaultName))) }
    /// A Double, 0 when missing. A Bool is 1 or 0, a string holding a number is that number.
    public func double(forKey defaultName: String) -> Double { Conversions.double(object(forKey: defaultName)) }
    /// A Bool, false when missing. Numbers are true when not 0; the strings "true",
    /// "YES", "1" (and others NSString's `boolValue` accepts) are true.
    public func bool(forKey defaultName: String) -> Bool { Conversions.bool(object(forKey: defaultName)) }
    /// A URL: a stored URL string, a path ("/…", or "~/…" with the tilde expanded)
    /// as a file URL, or an archived NSURL written by Apple's `set(_:forKey:)`. Nil otherwise.
    public func url(forKey defaultName: String) -> URL? { Conversions.url(object(forKey: defaultName)) }

    // MARK: Writing, UserDefaults-shaped

    /// Stores a property-list value (String, Int, Double, Float, Bool, Data, Date,
    /// URL, and arrays and dictionaries of these), or removes the key for nil.
    /// Atomic and durable when it returns. A non-property-list value (nested ones
    /// included) or a disk failure writes nothing and is reported through
    /// ``lastError``; ``save(_:forKey:)`` throws instead.
    public func set(_ value: Any?, forKey defaultName: String) {
        do { try save(value, forKey: defaultName) } catch { report(error, during: "set(_:forKey: \"\(defaultName)\")") }
    }
    /// Stores an integer.
    public func set(_ value: Int, forKey defaultName: String) { set(value as Any?, forKey: defaultName) }
    /// Stores a Float (as a real).
    public func set(_ value: Float, forKey defaultName: String) { set(value as Any?, forKey: defaultName) }
    /// Stores a Double.
    public func set(_ value: Double, forKey defaultName: String) { set(value as Any?, forKey: defaultName) }
    /// Stores a Bool.
    public func set(_ value: Bool, forKey defaultName: String) { set(value as Any?, forKey: defaultName) }
    /// Stores a URL as its `absoluteString` (readable by any plist reader); nil removes the key.
    public func set(_ url: URL?, forKey defaultName: String) { set(url.map { $0.absoluteString as Any }, forKey: defaultName) }

    /// Removes the key from the suite (a registered default shows through again).
    public func removeObject(forKey defaultName: String) { set(nil as Any?, forKey: defaultName) }

    /// Does nothing and returns true: every write is already on disk and every read
    /// already current. Kept so code written for `UserDefaults` compiles.
    @discardableResult
    public func synchronize() -> Bool { true }

    // MARK: Writing, throwing

    /// Stores a property-list value, or removes the key for nil, and tells the
    /// caller when it could not.
    /// - Throws: ``SharedDefaultsError/invalidKey(_:problem:)`` for an empty key, one over
    ///   4096 bytes or one holding a NUL; ``SharedDefaultsError/notPropertyList(key:path:type:)`` naming the key and
    ///   the offending (possibly nested) type; ``SharedDefaultsError/suiteTooLarge(path:size:limit:)``;
    ///   ``SharedDefaultsError/fileSystem(path:reason:)``. Nothing is written then.
    public func save(_ value: Any?, forKey defaultName: String) throws {
        try SharedDefaultsError.passingUp(path: fileURL.path) {
            try DefaultsKey.validate(defaultName)
            let stored = try value.map { try CanonicalTree.tree(PropertyListValue.normalize($0, key: defaultName), key: defaultName) }
            try save(stored: stored, forKey: defaultName)
        }
    }

    /// Stores an already checked value, or removes the key for nil.
    func save(stored: PropertyListTree?, forKey defaultName: String) throws {
        try DefaultsKey.validate(defaultName)
        try commit { _ in ((), [SuiteStore.Change(key: defaultName, value: stored)]) }
    }

    /// Runs a modification under the write lock and reports a corrupt file that the
    /// save moved aside (the save itself succeeded). The changes `body` returns are
    /// applied to the suite as it stands when `body` returns (see ``SuiteStore/modify(_:)``).
    func commit<R>(_ body: (PropertyListDictionary) throws -> (result: R, changes: [SuiteStore.Change])) throws -> R {
        let committed = try store.modify(body)
        if let recovered = committed.recovered { report(recovered, during: "saving the suite") }
        return committed.result
    }
}
