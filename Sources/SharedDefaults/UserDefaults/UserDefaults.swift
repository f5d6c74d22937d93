#if !canImport(Darwin)
import AppGroupContainer
import Foundation

/// Foundation's `UserDefaults`, on the emulated suites: iOS code that shares
/// through an App Group compiles and behaves the same with one import line added.
///
/// ```swift
/// import Foundation
/// #if !canImport(Darwin)
/// import class SharedDefaults.UserDefaults   // this class, in place of Foundation's, in this file
/// #endif
///
/// let defaults = UserDefaults(suiteName: "group.ai.systenics.notes")
/// defaults?.set(sharedURL.absoluteString, forKey: "pendingURL")
/// ```
///
/// Declared only where Foundation has no App Groups (not on Apple's platforms).
/// A file that imports both Foundation and `SharedDefaults` without the scoped
/// import finds two `UserDefaults` and does not compile: the scoped import is
/// what picks this one (Swift prefers a scoped import to a whole-module one).
///
/// Every call goes to a ``SharedDefaults`` suite (``sharedDefaults``): writes are
/// atomic and durable when they return, reads see every process's latest write,
/// and nothing is written to Foundation's own preferences files. Not a subclass
/// of Foundation's class: that one is explicitly not `Sendable` on Linux, and
/// iOS's is, so `static let shared = UserDefaults(suiteName: ...)!` would not
/// compile in Swift 6 against a subclass.
///
/// What differs from iOS is listed in <doc:PortingUserDefaults>.
open class UserDefaults: NSObject, @unchecked Sendable {
    /// The suite behind this object, or why there is none (the standard suite of
    /// a process without an identity).
    enum Backing {
        case suite(SharedDefaults)
        case unavailable(SharedDefaultsError)
    }

    let backing: Backing

    // Guards `searchList`, `volatileDomains` and `warnedUnavailable`.
    let lock = NSLock()
    /// Suites added with ``addSuite(named:)``, searched after this one, in order.
    var searchList: [SharedDefaults] = []
    /// Domains set with ``setVolatileDomain(_:forName:)`` (canonical values).
    var volatileDomains: [String: [String: Any]] = [:]
    var warnedUnavailable = false

    // MARK: Creating

    /// The suite named `suitename` for the process's identity and container root
    /// (`ContainerResolver.current()`): a group identifier is the group's shared
    /// suite, any other name a suite private to the target, nil the target's own
    /// domain (as ``standard``).
    ///
    /// As on iOS, a target not entitled to the group still gets a usable suite,
    /// private to it, that no other target reads; a one-line warning says why.
    /// Nil, as on Apple's platforms, for `NSGlobalDomain` and the target's own
    /// bundle identifier; here also for a name that cannot be a file name and when
    /// the process has no identity (the reason goes through `Diagnostics.handler`).
    ///
    /// Where the caller could be another identity scope's (work hopped to a queue
    /// while several targets' scopes are live, see `IdentityScope`), an object that
    /// refuses every call: reads find nothing, writes write nothing, each call says
    /// why through `Diagnostics.handler`, and ``lastError`` holds the conflict
    /// (`SharedDefaultsError.suiteUnavailable` with `AppGroupError.identityScopeConflict`).
    /// Not nil there, so that `UserDefaults(suiteName: group)!` does not crash the
    /// test process.
    public init?(suiteName suitename: String?) {
        let resolved = Result { try SharedDefaults.environmentResolver(suiteName: suitename) }
        if case .failure(let error as SharedDefaultsError) = resolved, error.isIdentityScopeRefusal {
            Diagnostics.warn("\(Self.call(suitename)): every call on this object is refused: \(error)")
            backing = .unavailable(error)
            super.init()
            return
        }
        guard let suite = SharedDefaults(lenientSuiteName: suitename, call: Self.call(suitename),
                                         resolving: { try resolved.get() }) else { return nil }
        backing = .suite(suite)
        super.init()
    }

    /// The suite named `suitename` for the identity and root of `resolver`, as
    /// ``init(suiteName:)`` opens it; for tests that play several targets in one process.
    public init?(suiteName suitename: String?, resolver: ContainerResolver) {
        guard let suite = SharedDefaults(lenientSuiteName: suitename, call: Self.call(suitename), resolving: { resolver }) else { return nil }
        backing = .suite(suite)
        super.init()
    }

    /// The UserDefaults vocabulary over an already open suite.
    public init(_ suite: SharedDefaults) {
        backing = .suite(suite)
        super.init()
    }

    /// The strict form of ``init(suiteName:)``, for tests that want the failure:
    /// throws where iOS would quietly give a private suite (the identity lacks the
    /// group) and where ``init(suiteName:)`` returns nil.
    /// - Parameters:
    ///   - suitename: as for ``init(suiteName:)``.
    ///   - resolver: the identity and root; nil: `ContainerResolver.current()`.
    /// - Throws: ``SharedDefaultsError/suiteUnavailable(suite:reason:)`` naming the
    ///   group, the groups held and the fix; ``SharedDefaultsError/invalidSuiteName(_:problem:)``.
    public convenience init(requiringSuiteName suitename: String?, resolver: ContainerResolver? = nil) throws {
        self.init(try SharedDefaults(requiringSuiteName: suitename, resolver: resolver))
    }

    /// A new object on the target's own domain (the one ``standard`` reads).
    public override convenience init() {
        self.init(backing: StandardSuites.openBacking())
    }

    private static func call(_ suitename: String?) -> String { "UserDefaults(suiteName: \(SharedDefaults.quoted(suitename)))" }

    init(backing: Backing) {
        self.backing = backing
        super.init()
    }

    /// The target's own defaults, persisted in its private storage
    /// (`<root>/Applications/<bundle id>/Library/Preferences/<bundle id>.plist`) and
    /// shared by every process of the same target, as iOS's standard defaults are.
    /// One object per identity and root (`ContainerResolver.current()`). Without an
    /// identity it reads and writes nothing, and says why; so does the object given
    /// where the caller could be another identity scope's (see ``init(suiteName:)``),
    /// at every call, with the conflict in ``lastError``.
    open class var standard: UserDefaults { StandardSuites.current() }

    /// Forgets the ``standard`` objects made so far; the next access opens them again.
    open class func resetStandardUserDefaults() { StandardSuites.reset() }

    // MARK: Reading

    /// The value for `defaultName`: a launch argument's (`-key value`), else this
    /// suite's, else that of a suite added with ``addSuite(named:)``, else the
    /// registered default, else nil. Numbers and
    /// booleans come as `NSNumber` (at any depth), as on iOS, so `as? Int`,
    /// `as? Double`, `as? Float` and `as? Bool` succeed wherever the value fits.
    open func object(forKey defaultName: String) -> Any? {
        canonicalValue(forKey: defaultName, during: "object(forKey: \"\(defaultName)\")").map(FoundationValues.bridge)
    }

    /// The same as ``object(forKey:)``: `NSUserDefaults` answers key-value coding
    /// with its defaults (Linux's `NSObject` has no key-value coding).
    open func value(forKey key: String) -> Any? { object(forKey: key) }

    /// A string; a number becomes its string value (123 → "123"). Nil otherwise.
    open func string(forKey defaultName: String) -> String? { Conversions.string(canonical(defaultName)) }
    /// An array (numbers inside as `NSNumber`); nil when missing or not an array.
    open func array(forKey defaultName: String) -> [Any]? { object(forKey: defaultName) as? [Any] }
    /// A dictionary (numbers inside as `NSNumber`); nil when missing or not a dictionary.
    open func dictionary(forKey defaultName: String) -> [String: Any]? { object(forKey: defaultName) as? [String: Any] }
    /// Data; nil when missing or not data.
    open func data(forKey defaultName: String) -> Data? { canonical(defaultName) as? Data }
    /// An array of strings; nil when missing, not an array, or any element is not a string.
    open func stringArray(forKey defaultName: String) -> [String]? { Conversions.stringArray(canonical(defaultName)) }
    /// An integer, 0 when missing; coerced as ``SharedDefaults/integer(forKey:)``.
    open func integer(forKey defaultName: String) -> Int { Conversions.integer(canonical(defaultName)) }
    /// A Float, 0 when missing; coerced as ``double(forKey:)``.
    open func float(forKey defaultName: String) -> Float { Float(Conversions.double(canonical(defaultName))) }
    /// A Double, 0 when missing; coerced as ``SharedDefaults/double(forKey:)``.
    open func double(forKey defaultName: String) -> Double { Conversions.double(canonical(defaultName)) }
    /// A Bool, false when missing; coerced as ``SharedDefaults/bool(forKey:)``.
    open func bool(forKey defaultName: String) -> Bool { Conversions.bool(canonical(defaultName)) }
    /// A URL, read as ``SharedDefaults/url(forKey:)`` reads it.
    open func url(forKey defaultName: String) -> URL? { Conversions.url(canonical(defaultName)) }

    /// The registration domain, the added suites, this suite and the launch
    /// arguments, merged (in that rising order of precedence): every key a read
    /// would find. Numbers as `NSNumber`.
    open func dictionaryRepresentation() -> [String: Any] { mergedSearchList() }

    /// False: nothing here forces a value (no configuration profiles).
    open func objectIsForced(forKey key: String) -> Bool { false }
    /// False: nothing here forces a value (no configuration profiles).
    open func objectIsForced(forKey key: String, inDomain domain: String) -> Bool { false }

    // MARK: Writing

    /// Stores a property-list value (String, numbers, Bool, Data, Date, URL, and
    /// arrays and dictionaries of these), or removes the key for nil; then posts
    /// ``didChangeNotification``. Atomic and durable when it returns.
    ///
    /// Where Apple raises an exception (a value that is not a property list) this
    /// writes nothing, says why through `Diagnostics.handler` and keeps it in
    /// ``lastError``; a disk failure is reported the same way.
    open func set(_ value: Any?, forKey defaultName: String) {
        change("set(_:forKey: \"\(defaultName)\")") { try $0.save(value, forKey: defaultName) }
    }

    /// The same as ``set(_:forKey:)-(Any?,_)``: `NSUserDefaults` answers key-value coding
    /// with its defaults; nil removes the key.
    open func setValue(_ value: Any?, forKey key: String) { set(value, forKey: key) }

    /// Key-value coding's bulk write: stores every value of `keyedValues` (an
    /// `NSNull` removes its key) in one atomic, durable save, then posts
    /// ``didChangeNotification`` once. Where Apple would raise an exception (a value
    /// that is not a property list) nothing is written: a migration that copies a
    /// suite into the group's never half-copies it. See ``set(_:forKey:)-(Any?,_)``
    /// for how a refusal is reported.
    open func setValuesForKeys(_ keyedValues: [String: Any]) {
        change("setValuesForKeys(_:) with \(keyedValues.count) keys") { try $0.saveAll(keyedValues.mapValues { Optional($0) }) }
    }

    /// Key-value coding's bulk read: the value of each key, `NSNull` for a key with none.
    open func dictionaryWithValues(forKeys keys: [String]) -> [String: Any] {
        var values: [String: Any] = [:]
        for key in keys { values[key] = value(forKey: key) ?? NSNull() }
        return values
    }

    /// Stores an integer.
    open func set(_ value: Int, forKey defaultName: String) { set(value as Any?, forKey: defaultName) }
    /// Stores a Float (as a real; it reads back `as? Float`).
    open func set(_ value: Float, forKey defaultName: String) { set(value as Any?, forKey: defaultName) }
    /// Stores a Double.
    open func set(_ value: Double, forKey defaultName: String) { set(value as Any?, forKey: defaultName) }
    /// Stores a Bool.
    open func set(_ value: Bool, forKey defaultName: String) { set(value as Any?, forKey: defaultName) }
    /// Stores a URL as its `absoluteString`; nil removes the key.
    open func set(_ url: URL?, forKey defaultName: String) { set(url.map { $0.absoluteString as Any }, forKey: defaultName) }

    /// Removes the key from this suite (a registered default shows through again);
    /// then posts ``didChangeNotification``.
    open func removeObject(forKey defaultName: String) { set(nil as Any?, forKey: defaultName) }

    /// Adds `registrationDictionary` to the process's registration domain, seen by
    /// every suite of this process and by no other process, never written. A
    /// non-property-list value registers nothing and is reported.
    open func register(defaults registrationDictionary: [String: Any]) { registerInProcess(registrationDictionary) }

    /// Does nothing and returns true: every write is already on disk and every
    /// read already current (the platform guides call it unnecessary on iOS too).
    @discardableResult
    open func synchronize() -> Bool { true }

    // MARK: Search list

    /// Adds the suite `suiteName` (opened as ``init(suiteName:)`` would) to this
    /// object's search list: read after this suite, before the registration domain.
    /// Never written through this object.
    open func addSuite(named suiteName: String) { addToSearchList(suiteName) }
    /// Removes the suite `suiteName` from this object's search list.
    open func removeSuite(named suiteName: String) { lock.withLock { searchList.removeAll { $0.suiteName == suiteName } } }

    // MARK: Domains

    /// The contents of the domain `domainName` (a suite name, or the target's own
    /// bundle identifier for its standard domain), without registered defaults;
    /// empty for a domain never written. Nil for a name no suite can have
    /// (`NSGlobalDomain`, an empty name, one with "/"...), which is reported.
    open func persistentDomain(forName domainName: String) -> [String: Any]? { persistentDomainContents(domainName) }

    /// Replaces the whole domain `domainName` with `domain`, atomically (other
    /// processes see the old contents or the new, never a mix); then posts
    /// ``didChangeNotification``. A non-property-list value anywhere writes nothing.
    open func setPersistentDomain(_ domain: [String: Any], forName domainName: String) { replacePersistentDomain(domainName, with: domain) }

    /// Empties the domain `domainName`, atomically; then posts ``didChangeNotification``.
    open func removePersistentDomain(forName domainName: String) { replacePersistentDomain(domainName, with: nil) }

    /// The names of the volatile domains: the argument and registration domains and those set here.
    open var volatileDomainNames: [String] { [Self.argumentDomain, Self.registrationDomain] + lock.withLock { Array(volatileDomains.keys) } }

    /// A volatile domain: the argument or registration domain by its name, else
    /// one set with ``setVolatileDomain(_:forName:)`` on this object; empty when there is none.
    open func volatileDomain(forName domainName: String) -> [String: Any] { volatileDomainContents(domainName) }

    /// Keeps `domain` in memory under `domainName` (not in the search list, as on
    /// Apple's platforms). A non-property-list value keeps nothing and is reported.
    open func setVolatileDomain(_ domain: [String: Any], forName domainName: String) { storeVolatileDomain(domain, forName: domainName) }

    /// Forgets the volatile domain `domainName`.
    open func removeVolatileDomain(forName domainName: String) { _ = lock.withLock { volatileDomains.removeValue(forKey: domainName) } }

    // MARK: The suite behind

    /// The emulated suite behind this object, for what `UserDefaults` lacks:
    /// ``SharedDefaults/update(forKey:_:)``, ``SharedDefaults/transaction(_:)``,
    /// observation from any process, throwing calls. Nil for a ``standard`` of a
    /// process without an identity.
    public var sharedDefaults: SharedDefaults? {
        if case .suite(let suite) = backing { return suite }
        return nil
    }

    /// The most recent failure of a call that cannot throw (see ``SharedDefaults/lastError``).
    public var lastError: SharedDefaultsError? {
        switch backing {
        case .suite(let suite): return suite.lastError
        case .unavailable(let error): return error
        }
    }
}

extension UserDefaults {
    /// Posted (object: the `UserDefaults` that changed) after a change made through
    /// it in this process; changes made by other processes post nothing, as on iOS
    /// (observe those with ``SharedDefaults/addObserver(forKey:initial:handler:)``).
    /// The same name as Foundation's, so observers of either receive it.
    public static let didChangeNotification = Foundation.UserDefaults.didChangeNotification
    /// The domain every application reads (refused as a suite name).
    public static let globalDomain = Foundation.UserDefaults.globalDomain
    /// The domain of launch arguments (`-key value`), first in the search list.
    public static let argumentDomain = Foundation.UserDefaults.argumentDomain
    /// The registration domain: ``register(defaults:)``, one per process.
    public static let registrationDomain = Foundation.UserDefaults.registrationDomain
}
#endif
