import Foundation

extension SharedDefaults {
    /// Replaces the value for `key` with `transform(old)` under the suite's write
    /// lock, so no other thread or process changes it in between: four processes
    /// incrementing a counter a thousand times each end at exactly 4000.
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
            let new = try transform(values[defaultName] ?? fallback).map { try PropertyListValue.normalize($0, key: defaultName) }
            let old = values[defaultName]
            if PropertyListValue.equal(old, new) { return (new, false) }
            values[defaultName] = new
            return (new, true)
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
    /// - Throws: what `body` throws, and as ``save(_:forKey:)``; nothing is written then.
    @discardableResult
    public func transaction<R>(_ body: (inout Transaction) throws -> R) throws -> R {
        let registered = RegistrationDomain.shared.snapshot
        return try commit { values in
            var transaction = Transaction(values: values, registered: registered)
            let result = try body(&transaction)
            values = transaction.values
            return (result, transaction.changed)
        }
    }

    /// The suite as a ``transaction(_:)`` sees it: the latest committed values,
    /// with changes checked as they are made.
    public struct Transaction {
        /// The suite's values as they stand in the transaction (without the registration domain).
        public private(set) var values: [String: Any]
        private let registered: [String: Any]
        var changed = false

        init(values: [String: Any], registered: [String: Any]) {
            self.values = values
            self.registered = registered
        }

        /// The value for `key`: the suite's, else the registered default, else nil.
        public func object(forKey defaultName: String) -> Any? { values[defaultName] ?? registered[defaultName] }
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
            let normalized = try PropertyListValue.normalize(value, key: defaultName)
            if let old = values[defaultName], PropertyListValue.equal(old, normalized) { return }
            values[defaultName] = normalized
            changed = true
        }

        /// Removes the key.
        public mutating func removeObject(forKey defaultName: String) {
            if values.removeValue(forKey: defaultName) != nil { changed = true }
        }
    }
}
