import Foundation

/// Where each key of a ``PropertyListDictionary`` sits in its entries, found by the
/// key's exact UTF-8 bytes (the same equality as ``ExactKey``).
///
/// An open-addressing table (linear probing, at most half full) of entry positions.
/// Swift's `Dictionary` hashes every key with SipHash through `Hasher`, which was
/// a quarter of a 100-key suite's parse; this table hashes with a cheap multiply-mix
/// keyed by a per-process random seed. A file crafted so that many keys collide
/// anyway cannot make it quadratic: a probe longer than ``hardeningProbe`` rebuilds
/// the table with SipHash (`Hasher`, randomly seeded per process, as `Dictionary`
/// does), whose collisions cannot be aimed at.
struct KeyIndex: Sendable {
    typealias Entries = UnsafeBufferPointer<(key: String, value: PropertyListTree)>

    /// Entry position + 1 per slot, 0 when empty; the count is a power of two.
    private var slots: [Int32] = []
    private var hardened = false

    /// A probe this long is not bad luck at half load: the keys were chosen to collide.
    private static let hardeningProbe = 48
    private static let seed = UInt64.random(in: .min ... .max)

    init() {}

    /// An index of `entries`, or nil when two of them have the same key.
    init?(unique entries: Entries) {
        allocate(for: entries.count)
        for position in entries.indices {
            if add(at: position, of: entries) != nil { return nil }
        }
    }

    /// The position of the entry whose key is exactly `key`, if any.
    func position(of key: String, in entries: Entries) -> Int? {
        guard !slots.isEmpty else { return nil }
        var key = key
        return key.withUTF8 { bytes in
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash(bytes)) & mask
            while true {
                let stored = Int(slots[slot])
                if stored == 0 { return nil }
                if Self.equal(Self.key(entries, stored - 1), bytes) { return stored - 1 }
                slot = (slot + 1) & mask
            }
        }
    }

    /// The key of `entries[i]`, read alone: `entries[i].key` copies the value too.
    @inline(__always)
    private static func key(_ entries: Entries, _ i: Int) -> String {
        guard let key = entries.baseAddress.flatMap({ ($0 + i).pointer(to: \.key) }) else { return entries[i].key }
        return key.pointee
    }

    /// Records that `entries[position]` holds its key, unless an earlier entry has
    /// exactly that key: then that entry's position, and nothing is recorded.
    /// Entries before `position` must all be indexed.
    mutating func add(at position: Int, of entries: Entries) -> Int? {
        if (position + 1) * 2 > slots.count { rebuild(UnsafeBufferPointer(rebasing: entries[..<position]), room: position + 1) }
        var key = Self.key(entries, position)
        return key.withUTF8 { bytes in
            switch place(bytes, at: position, checking: entries) {
            case .placed: return nil
            case .found(let existing): return existing
            case .tooLong:
                hardened = true
                rebuild(UnsafeBufferPointer(rebasing: entries[..<position]), room: position + 1)
                if case .found(let existing) = place(bytes, at: position, checking: entries) { return existing }
                return nil
            }
        }
    }

    /// Indexes `entries` afresh (after a removal shifted the positions), with room
    /// for `room` keys; their keys must all differ.
    mutating func rebuild(_ entries: Entries, room: Int? = nil) {
        while true {
            allocate(for: max(room ?? 0, entries.count))
            var placed = 0
            for entry in entries {
                var key = entry.key
                guard case .placed = key.withUTF8({ place($0, at: placed, checking: nil) }) else { break }
                placed += 1
            }
            if placed == entries.count { return }
            // Only an unhardened table gives up: SipHash's probes stay short.
            hardened = true
        }
    }

    /// Empty slots, at least twice `count` (a power of two, eight or more).
    private mutating func allocate(for count: Int) {
        var capacity = 8
        while capacity < count * 2 { capacity <<= 1 }
        slots = [Int32](repeating: 0, count: capacity)
    }

    private enum Placement { case placed, found(Int), tooLong }

    /// Puts `position` in the first free slot of the key's probe, or finds the key
    /// there already (when `entries` is given to compare with).
    private mutating func place(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int, checking entries: Entries?) -> Placement {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash(bytes)) & mask
        var probes = 0
        while true {
            let stored = Int(slots[slot])
            if stored == 0 { break }
            if let entries, Self.equal(Self.key(entries, stored - 1), bytes) { return .found(stored - 1) }
            probes += 1
            if probes > Self.hardeningProbe && !hardened { return .tooLong }
            slot = (slot + 1) & mask
        }
        slots[slot] = Int32(truncatingIfNeeded: position + 1)
        return .placed
    }

    /// True once a long probe made the table use SipHash.
    var isHardened: Bool { hardened }

    #if ENABLE_MOCKING
    /// Tests only (debug builds): every key hashes alike until the table hardens,
    /// as keys crafted against the cheap hash would.
    @TaskLocal static var collidingForTests = false
    #endif

    private func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        #if ENABLE_MOCKING
        if !hardened && Self.collidingForTests { return 0 }
        #endif
        if hardened {
            var hasher = Hasher()
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
            return UInt64(UInt(bitPattern: hasher.finalize()))
        }
        // Eight bytes at a time, each word mixed in by splitmix64's finalizer, the
        // length folded into the seed; a short key in one or two overlapping loads.
        let n = bytes.count
        var h = Self.seed ^ (UInt64(n) &* 0x9E37_79B9_7F4A_7C15)
        let raw = UnsafeRawBufferPointer(bytes)
        if n > 8 {
            var at = 0
            while at + 8 < n {
                h = Self.mix(h ^ raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))
                at += 8
            }
            h = Self.mix(h ^ raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self))
        } else if n >= 4 {
            let low = UInt64(raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
            let high = UInt64(raw.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
            h = Self.mix(h ^ (high << 32 | low))
        } else if n > 0 {
            h = Self.mix(h ^ (UInt64(raw[0]) << 16 | UInt64(raw[n >> 1]) << 8 | UInt64(raw[n - 1])))
        }
        return h
    }

    @inline(__always)
    private static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static func equal(_ stored: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var stored = stored
        return stored.withUTF8 { mine in
            guard mine.count == bytes.count else { return false }
            guard let left = mine.baseAddress, let right = bytes.baseAddress else { return true } // both empty
            return memcmp(left, right, mine.count) == 0
        }
    }
}
