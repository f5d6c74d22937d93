import AppGroupContainer
import Foundation
import PropertyLists

extension SharedDefaults {
    /// Stores several values in one atomic, durable save, or none of them: every
    /// key and value is checked before anything is written. A nil or `NSNull`
    /// value removes its key (key-value coding's `setValuesForKeys` convention).
    /// - Throws: as ``save(_:forKey:)``, for the first key or value refused; nothing is written then.
    func saveAll(_ values: [String: Any?]) throws {
        try SharedDefaultsError.passingUp(path: fileURL.path) {
            var changes: [SuiteStore.Change] = []
            for key in values.keys.sorted() {
                try DefaultsKey.validate(key)
                let value = values[key] ?? nil
                let stored = value is NSNull ? nil : try value.map { try CanonicalTree.tree(PropertyListValue.normalize($0, key: key), key: key) }
                changes.append(SuiteStore.Change(key: key, value: stored))
            }
            guard !changes.isEmpty else { return }
            try commit { _ in ((), changes) }
        }
    }
}
