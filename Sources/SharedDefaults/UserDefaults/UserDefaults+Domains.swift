#if !canImport(Darwin)
import AppGroupContainer
import Foundation
import PropertyLists

// Persistent and volatile domains by name.
extension UserDefaults {
    /// The suite holding the domain `domainName`, opened for this object's
    /// identity as ``init(suiteName:)`` would (the target's bundle identifier names
    /// its standard domain). Nil, reported, when the name is refused.
    func domainSuite(_ domainName: String, during operation: String) -> SharedDefaults? {
        guard let own = suite(during: operation) else { return nil }
        if domainName == own.suiteName { return own }
        guard let resolver = own.resolver else {
            own.report(SharedDefaultsError.invalidSuiteName(domainName, problem:
                "this object was made from a suite opened without an identity, so other domains cannot be resolved; open it with a resolver"),
                       during: operation)
            return nil
        }
        let isStandard = domainName == resolver.entitlements.bundleIdentifier
        if isStandard && own.suiteName == nil { return own }
        return SharedDefaults(lenientSuiteName: isStandard ? nil : domainName, call: "UserDefaults \(operation)", failure: "did nothing",
                              resolving: { resolver })
    }

    func persistentDomainContents(_ domainName: String) -> [String: Any]? {
        let operation = "persistentDomain(forName: \"\(domainName)\")"
        guard let suite = domainSuite(domainName, during: operation) else { return nil }
        do {
            return try suite.persistentDomain().mapValues(FoundationValues.bridge)
        } catch {
            suite.report(error, during: operation)
            return nil
        }
    }

    /// Replaces every key of the domain with `domain` (nil: empties it) in one
    /// atomic save, keys that differ only in Unicode normalization included.
    func replacePersistentDomain(_ domainName: String, with domain: [String: Any]?) {
        let operation = domain == nil ? "removePersistentDomain(forName: \"\(domainName)\")" : "setPersistentDomain(_:forName: \"\(domainName)\")"
        guard let target = domainSuite(domainName, during: operation) else { return }
        change(operation) { _ in
            // Every value is checked before anything is written.
            var replacement: [(key: String, tree: PropertyListTree)] = []
            for (key, value) in try Self.normalized(domain ?? [:]) {
                try DefaultsKey.validate(key)
                replacement.append((key, try CanonicalTree.tree(value, key: key)))
            }
            try target.commit { current in
                let removed = current.keys.map { SuiteStore.Change(key: $0, value: nil) }
                return ((), removed + replacement.map { SuiteStore.Change(key: $0.key, value: $0.tree) })
            }
        }
    }

    func volatileDomainContents(_ domainName: String) -> [String: Any] {
        let canonical: [String: Any]
        switch domainName {
        case Self.registrationDomain: canonical = RegistrationDomain.shared.snapshot
        case Self.argumentDomain: canonical = ArgumentDomain.values
        default: canonical = lock.withLock { volatileDomains[domainName] } ?? [:]
        }
        return canonical.mapValues(FoundationValues.bridge)
    }

    func storeVolatileDomain(_ domain: [String: Any], forName domainName: String) {
        do {
            let normalized = try Self.normalized(domain)
            lock.withLock { volatileDomains[domainName] = normalized }
        } catch {
            Diagnostics.warn("UserDefaults setVolatileDomain(_:forName: \"\(domainName)\"): \(error); nothing was kept")
        }
    }
}
#endif
