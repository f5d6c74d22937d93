/// A property-list dictionary: keys compared by exact Unicode scalars (see
/// ``ExactKey``), entries kept in insertion (file) order.
package struct PropertyListDictionary: Sendable, Equatable, Sequence {
    package typealias Entry = (key: String, value: PropertyListTree)
    package private(set) var entries: [Entry] = []
    private var index = KeyIndex()

    package init() {}

    /// An empty dictionary with room for `capacity` entries (a reader knows the count).
    package init(minimumCapacity capacity: Int) {
        entries.reserveCapacity(capacity)
    }

    /// The dictionary of `entries`, in that order; of a key given twice, the last
    /// value at the first one's place (as setting them in turn would). The reader's
    /// way: one probe of the index per key.
    package init(_ entries: [Entry]) {
        if let index = entries.withUnsafeBufferPointer({ KeyIndex(unique: $0) }) {
            self.entries = entries
            self.index = index
            return
        }
        // A key given twice (a hand-made or hostile file): merged one by one.
        self.entries.reserveCapacity(entries.count)
        for (key, value) in entries { set(value, forKey: key) }
    }

    /// True when the key index fell back to SipHash (keys that collide on purpose).
    var indexIsHardened: Bool { index.isHardened }

    package var count: Int { entries.count }
    package var isEmpty: Bool { entries.isEmpty }
    package var keys: [String] { entries.map(\.key) }

    /// The value stored under exactly this spelling of `key`.
    package subscript(key: String) -> PropertyListTree? {
        get { position(of: key).map { entries[$0].value } }
        set {
            if let newValue { set(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    private func position(of key: String) -> Int? {
        entries.withUnsafeBufferPointer { index.position(of: key, in: $0) }
    }

    /// Where exactly this spelling of `key` sits in ``entries``, if anywhere.
    package func index(forKey key: String) -> Int? { position(of: key) }

    /// Replaces the value of the entry at `index` (from ``index(forKey:)``).
    package mutating func setValue(_ value: PropertyListTree, at index: Int) {
        entries[index].value = value
    }

    /// Sets the value; a new key goes last, an existing one keeps its place.
    package mutating func set(_ value: PropertyListTree, forKey key: String) {
        if let at = position(of: key) {
            entries[at].value = value
            return
        }
        entries.append((key, value))
        var index = self.index
        self.index = KeyIndex() // keeps `index`'s table uniquely referenced
        _ = entries.withUnsafeBufferPointer { index.add(at: $0.count - 1, of: $0) }
        self.index = index
    }

    /// Removes exactly this spelling of `key`; returns the value it had.
    @discardableResult
    package mutating func removeValue(forKey key: String) -> PropertyListTree? {
        guard let at = position(of: key) else { return nil }
        let removed = entries.remove(at: at).value
        var index = self.index
        self.index = KeyIndex()
        entries.withUnsafeBufferPointer { index.rebuild($0) }
        self.index = index
        return removed
    }

    package func makeIterator() -> IndexingIterator<[Entry]> {
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
