/// A property-list dictionary: keys compared by exact Unicode scalars (see
/// ``ExactKey``), entries kept in insertion (file) order.
package struct PropertyListDictionary: Sendable, Equatable, Sequence {
    package private(set) var entries: [(key: String, value: PropertyListTree)] = []
    private var index: [ExactKey: Int] = [:]

    package init() {}

    package var count: Int { entries.count }
    package var isEmpty: Bool { entries.isEmpty }
    package var keys: [String] { entries.map(\.key) }

    /// The value stored under exactly this spelling of `key`.
    package subscript(key: String) -> PropertyListTree? {
        get { index[ExactKey(key)].map { entries[$0].value } }
        set {
            if let newValue { set(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// Sets the value; a new key goes last, an existing one keeps its place.
    package mutating func set(_ value: PropertyListTree, forKey key: String) {
        if let at = index[ExactKey(key)] {
            entries[at].value = value
        } else {
            index[ExactKey(key)] = entries.count
            entries.append((key, value))
        }
    }

    /// Removes exactly this spelling of `key`; returns the value it had.
    @discardableResult
    package mutating func removeValue(forKey key: String) -> PropertyListTree? {
        guard let at = index.removeValue(forKey: ExactKey(key)) else { return nil }
        let removed = entries.remove(at: at).value
        for i in at..<entries.count { index[ExactKey(entries[i].key)] = i }
        return removed
    }

    package func makeIterator() -> IndexingIterator<[(key: String, value: PropertyListTree)]> {
        entries.makeIterator()
    }

    /// Equal when the same exact keys map to equal values (order does not matter,
    /// as for any dictionary).
    package static func == (a: PropertyListDictionary, b: PropertyListDictionary) -> Bool {
        guard a.count == b.count else { return false }
        for (key, value) in a.entries {
            guard let other = b[key], other == value else { return false }
        }
        return true
    }
}
