/// The children of a binary reader's open containers, in one stack for the whole
/// walk. A container that closes takes its children by moving them (a memory copy,
/// no reference counting): copying each key and value into the container and then
/// destroying the originals was a third of a 100-key suite's parse.
struct EntryStack {
    typealias Entry = PropertyListDictionary.Entry

    private var base: UnsafeMutablePointer<Entry>
    private var capacity: Int
    private(set) var count = 0

    init() {
        capacity = 16
        base = .allocate(capacity: capacity)
    }

    /// Makes room for `extra` more entries at once (a container knows its count).
    mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: max(count + extra, 2 * capacity)) }
    }

    mutating func push(_ entry: Entry) {
        if count == capacity { grow(to: 2 * capacity) }
        (base + count).initialize(to: entry)
        count += 1
    }

    /// The entries from `start` to the top, moved out in order.
    mutating func popEntries(from start: Int) -> [Entry] {
        let n = count - start
        count = start
        let from = base + start
        return [Entry](unsafeUninitializedCapacity: n) { buffer, initialized in
            if let out = buffer.baseAddress { out.moveInitialize(from: from, count: n) }
            initialized = n
        }
    }

    /// The values of the entries from `start` to the top (an array's; their keys
    /// are empty), moved out in order.
    mutating func popValues(from start: Int) -> [PropertyListTree] {
        let n = count - start
        count = start
        let from = base + start
        return [PropertyListTree](unsafeUninitializedCapacity: n) { buffer, initialized in
            if let out = buffer.baseAddress {
                for i in 0..<n { (out + i).initialize(to: (from + i).move().value) }
            }
            initialized = n
        }
    }

    /// Frees the stack and what is left on it (after an error).
    func release() {
        base.deinitialize(count: count)
        base.deallocate()
    }

    private mutating func grow(to newCapacity: Int) {
        let grown = UnsafeMutablePointer<Entry>.allocate(capacity: newCapacity)
        grown.moveInitialize(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }
}
