import Foundation

/// A string compared and hashed by its exact Unicode scalars.
///
/// Swift's `String ==` is canonical equivalence ("caf\u{E9}" == "cafe\u{301}"),
/// but Apple's dictionaries compare UTF-16 code units, so a key must keep the
/// spelling it was written with. Comparing the UTF-8 bytes of valid strings is
/// the same as comparing their UTF-16 code units.
package struct ExactKey: Hashable, Sendable {
    package let string: String

    package init(_ string: String) { self.string = string }

    package static func == (a: ExactKey, b: ExactKey) -> Bool {
        let x = a.string.utf8, y = b.string.utf8
        guard x.count == y.count else { return false }
        // Native strings are contiguous UTF-8: one memcmp instead of a walk.
        let fast = x.withContiguousStorageIfAvailable { p in
            y.withContiguousStorageIfAvailable { q in
                guard let left = p.baseAddress, let right = q.baseAddress else { return true } // both empty
                return memcmp(left, right, p.count) == 0
            }
        }
        if let fast, let equal = fast { return equal }
        return x.elementsEqual(y)
    }

    package func hash(into hasher: inout Hasher) {
        // The bytes in one call (a combine per byte costs ten times as much); the
        // same bytes hash the same whichever way they are stored.
        let utf8 = string.utf8
        if utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
            Array(utf8).withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }
}
