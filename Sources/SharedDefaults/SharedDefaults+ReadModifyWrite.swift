import AppGroupContainer
import Foundation
import PropertyLists

extension SharedDefaults {
    /// Replaces the value for `key` with `transform(old)` under the suite's write
    /// lock, so no other thread or process changes it in between: four processes
    /// incrementing a counter a thousand times each end at exactly 4000.
    ///
    /// `transform` may write the suite itself (through this instance or another):
    /// those writes are kept, and this update is applied after them, as program
    /// order says (so a nested write of `key` itself is replaced by the result).
    ///
    /// `old` is what ``object(forKey:)`` would return (the registered default when
    /// the suite has none). Return nil to remove the key. Keep `transform` short:
    /// every other writer of the suite waits for it.
    /// - Returns: the value stored (nil when removed).
    /// - Throws: what `transform` throws, and as ``save(_:forKey:)``; nothing is written then.
    @discardableResult
    public func update(forKey defaultName: String, _ transform: (Any?) throws -> Any?) throws -> Any? {
        try DefaultsKey.validate(defaultName)
        let fallback = registeredValue(forKey: defaultName)
        return try commit { values in
            let old = values[defaultName].map(CanonicalTree.value) ?? fallback
            let new = try transform(old).map { try PropertyListValue.normalize($0, key: defaultName) }
            let stored = try new.map { try CanonicalTree.tree($0, key: defaultName) }
            return (new, [SuiteStore.Change(key: defaultName, value: stored)])
        }
    }

    /// ``update(forKey:_:)`` for a value of a known type: `old` is nil when the key
    /// is missing or holds another type.
    ///
    /// ```swift
    /// try defaults.update(Int.self, forKey: "launches") { ($0 ?? 0) + 1 }
    /// ```
    @discardableResult
    public func update<Value>(_ type: Value.Type, forKey defaultName: String, _ transform: (Value?) throws -> Value?) throws -> Value? {
        try update(forKey: defaultName) { old in try transform(old as? Value) } as? Value
    }

    /// Runs `body` on the whole suite under one write lock and saves its changes
    /// atomically: other processes see all of them or none, and nothing written
    /// by another process in between is lost.
    ///
    /// ```swift
    /// try defaults.transaction { suite in
    ///     let n = suite.integer(forKey: "pending")
    ///     try suite.set(n + 1, forKey: "pending")
    ///     try suite.set(Date(), forKey: "lastShare")
    /// }
    /// ```
    ///
    /// Writes `body` makes outside the transaction (through this instance, another
    /// instance of the suite, or another suite) are kept: they are committed when
    /// they return, and the transaction's own changes are applied after them, in
    /// program order. The transaction's view does not show them.
    /// - Throws: what `body` throws, and as ``save(_:forKey:)``; nothing is written then.
    @discardableResult
    public func transaction<R>(_ body: (inout Transaction) throws -> R) throws -> R {
        let registered = RegistrationDomain.shared.exactSnapshot
        return try commit { values in
            var transaction = Transaction(values: values, registered: registered)
            let result = try body(&transaction)
            return (result, transaction.changes)
        }
    }

    /// The stored form of a property-list value, checked as ``save(_:forKey:)`` checks
    /// it, for tools that add to stored values (``Transaction/set(stored:forKey:)``).
    /// - Throws: ``SharedDefaultsError/notPropertyList(key:path:type:)``.
    package static func storedForm(of value: Any, forKey key: String) throws -> PropertyListTree {
        try CanonicalTree.tree(PropertyListValue.normalize(value, key: key), key: key)
    }

    /// The suite as a ``transaction(_:)`` sees it: the latest committed values,
    /// with changes checked as they are made. Keys are matched by their exact
    /// spelling, as in ``SharedDefaults/load(forKey:)``.
    public struct Transaction {
        private var stored: PropertyListDictionary
        private let registered: [ExactKey: Any]
        /// The changes made, in order; applied to the suite when the body returns.
        private(set) var changes: [SuiteStore.Change] = []

        init(values: PropertyListDictionary, registered: [ExactKey: Any]) {
            self.stored = values
            self.registered = registered
        }

        /// The suite's values as they stand in the transaction (without the
        /// registration domain). Of keys that differ only in Unicode normalization,
        /// the first in file order; ``keys`` lists every stored spelling.
        public var values: [String: Any] { CanonicalTree.dictionary(stored) }

        /// Every key as it stands in the transaction, exactly as spelled, in file order.
        public var keys: [String] { stored.keys }

        /// The value for `key`: the suite's, else the registered default, else nil.
        public func object(forKey defaultName: String) -> Any? {
            stored[defaultName].map(CanonicalTree.value) ?? registered[ExactKey(defaultName)]
        }
        /// As ``SharedDefaults/integer(forKey:)``.
        public func integer(forKey defaultName: String) -> Int { Conversions.integer(object(forKey: defaultName)) }
        /// As ``SharedDefaults/double(forKey:)``.
        public func double(forKey defaultName: String) -> Double { Conversions.double(object(forKey: defaultName)) }
        /// As ``SharedDefaults/bool(forKey:)``.
        public func bool(forKey defaultName: String) -> Bool { Conversions.bool(object(forKey: defaultName)) }
        /// As ``SharedDefaults/string(forKey:)``.
        public func string(forKey defaultName: String) -> String? { Conversions.string(object(forKey: defaultName)) }

        /// Sets a property-list value, or removes the key for nil.
        /// - Throws: ``SharedDefaultsError/invalidKey(_:problem:)``, ``SharedDefaultsError/notPropertyList(key:path:type:)``.
        public mutating func set(_ value: Any?, forKey defaultName: String) throws {
            try DefaultsKey.validate(defaultName)
            guard let value else { return removeObject(forKey: defaultName) }
            let tree = try CanonicalTree.tree(PropertyListValue.normalize(value, key: defaultName), key: defaultName)
            stored.set(tree, forKey: defaultName)
            changes.append(SuiteStore.Change(key: defaultName, value: tree))
        }

        /// The suite's own value for exactly this spelling of `key`, as the file holds it
        /// (no registered default), for tools that move values (`appgroup defaults rename`).
        package func storedValue(forKey defaultName: String) -> PropertyListTree? { stored[defaultName] }

        /// Sets a value exactly as a property list holds it, for tools that copy suites
        /// (`appgroup defaults import`): nested keys keep every spelling (a Swift
        /// dictionary would merge two that differ only in Unicode normalization), and
        /// key order, integers and the bits of reals and dates are kept as they are.
        /// - Throws: ``SharedDefaultsError/invalidKey(_:problem:)``;
        ///   ``SharedDefaultsError/notPropertyList(key:path:type:)`` for nesting deeper
        ///   than ``set(_:forKey:)`` accepts.
        package mutating func set(stored tree: PropertyListTree, forKey defaultName: String) throws {
            try DefaultsKey.validate(defaultName)
            try CanonicalTree.checkDepth(tree, key: defaultName)
            stored.set(tree, forKey: defaultName)
            changes.append(SuiteStore.Change(key: defaultName, value: tree))
        }

        /// Removes exactly this spelling of the key.
        public mutating func removeObject(forKey defaultName: String) {
            stored.removeValue(forKey: defaultName)
            changes.append(SuiteStore.Change(key: defaultName, value: nil))
        }
    }
}
