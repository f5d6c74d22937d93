#if !canImport(Darwin)
import AppGroupContainer
import Foundation

// How a UserDefaults object reads its search list and reports its writes.
extension UserDefaults {
    /// The suite, or nil after saying (once per object) why there is none.
    func suite(during operation: String) -> SharedDefaults? {
        switch backing {
        case .suite(let suite):
            return suite
        case .unavailable(let error):
            let first = lock.withLock { () -> Bool in
                defer { warnedUnavailable = true }
                return !warnedUnavailable
            }
            // A refused identity is said at every call: each is a value not written or not read.
            if first || error.isIdentityScopeRefusal {
                Diagnostics.warn("UserDefaults \(operation): no suite, nothing read or written: \(error)")
            }
            return nil
        }
    }

    func canonical(_ defaultName: String) -> Any? {
        canonicalValue(forKey: defaultName, during: "reading \"\(defaultName)\"")
    }

    /// The search list in canonical values: the argument domain, this suite, the
    /// added suites, the registration domain. A suite that cannot be read counts
    /// as empty and is reported through its ``SharedDefaults/lastError``.
    func canonicalValue(forKey defaultName: String, during operation: String) -> Any? {
        if let argument = ArgumentDomain.values[defaultName] { return argument }
        for suite in searchedSuites(during: operation) {
            do {
                if let value = try suite.persistentValue(forKey: defaultName) { return value }
            } catch {
                suite.report(error, during: operation)
            }
        }
        return RegistrationDomain.shared.value(forKey: defaultName)
    }

    /// Every key the search list holds, the first suite winning, as `NSNumber`s.
    func mergedSearchList() -> [String: Any] {
        var result = RegistrationDomain.shared.snapshot
        for suite in searchedSuites(during: "dictionaryRepresentation()").reversed() {
            do {
                result.merge(try suite.persistentDomain()) { _, stored in stored }
            } catch {
                suite.report(error, during: "dictionaryRepresentation()")
            }
        }
        result.merge(ArgumentDomain.values) { _, argument in argument }
        return result.mapValues(FoundationValues.bridge)
    }

    private func searchedSuites(during operation: String) -> [SharedDefaults] {
        (suite(during: operation).map { [$0] } ?? []) + lock.withLock { searchList }
    }

    func addToSearchList(_ suiteName: String) {
        guard let own = suite(during: "addSuite(named: \"\(suiteName)\")") else { return }
        if suiteName == own.suiteName || lock.withLock({ searchList.contains { $0.suiteName == suiteName } }) { return }
        guard let added = domainSuite(suiteName, during: "addSuite(named:)") else { return }
        lock.withLock { searchList.append(added) }
    }

    /// Runs a write on this suite; on success posts ``didChangeNotification``
    /// (synchronously, on this thread, after the change is on disk, as Apple posts
    /// it for changes made in the current process); on failure reports it.
    func change(_ operation: String, _ write: (SharedDefaults) throws -> Void) {
        guard let suite = suite(during: operation) else { return }
        do {
            try write(suite)
        } catch {
            suite.report(error, during: operation)
            return
        }
        NotificationCenter.default.post(name: Self.didChangeNotification, object: self)
    }

    func registerInProcess(_ registrationDictionary: [String: Any]) {
        if let suite = sharedDefaults {
            suite.register(defaults: registrationDictionary)
            return
        }
        // The standard object of a process without an identity still registers.
        do {
            RegistrationDomain.shared.register(try Self.normalized(registrationDictionary))
        } catch {
            Diagnostics.warn("UserDefaults register(defaults:): \(error)")
        }
    }

    /// A caller's dictionary in canonical values.
    /// - Throws: ``SharedDefaultsError/notPropertyList(key:path:type:)``.
    static func normalized(_ dictionary: [String: Any]) throws -> [String: Any] {
        var normalized: [String: Any] = [:]
        for (key, value) in dictionary { normalized[key] = try PropertyListValue.normalize(value, key: key) }
        return normalized
    }
}
#endif
