/// A property-list dictionary: keys compared by exact Unicode scalars (see
/// ``ExactKey``), entries kept in insertion (file) order.
package struct PropertyListDictionary: Sendable, Equatable, Sequence {
    package private(set) var entries: [(key: String, value: PropertyListTree)] = []
    private var index: [ExactKey: Int] = [:]

    package init() {}

    /// An empty dictionary with room for `capacity` entries (a reader knows the count).
    package init(minimumCapacity capacity: Int) {
        entries.reserveCapacity(capacity)
        index.reserveCapacity(capacity)
    }

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
        // One hash: a new key's slot is made with the next position.
        let next = entries.count
        let at = Self.position(&index[ExactKey(key), default: next])
        if at == next {
            entries.append((key, value))
        } else {
            entries[at].value = value
        }
    }

    private static func position(_ slot: inout Int) -> Int { slot }

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
