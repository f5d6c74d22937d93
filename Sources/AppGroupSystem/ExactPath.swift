import Foundation

/// A path compared and hashed by its exact UTF-8 bytes.
///
/// Swift's `String` equality is canonical equivalence: ".../caf\u{E9}" and
/// ".../cafe\u{301}" are equal Strings, yet two different files to the kernel.
/// Every table or comparison of paths uses this instead, so one file's lock is
/// never taken for the other's.
package struct ExactPath: Hashable, Sendable {
    package let string: String

    package init(_ string: String) { self.string = string }

    package static func == (a: ExactPath, b: ExactPath) -> Bool { same(a.string, b.string) }

    package func hash(into hasher: inout Hasher) {
        let hashed: Void? = string.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil { for byte in string.utf8 { hasher.combine(byte) } }
    }

    /// True when `a` and `b` are the same bytes: one memcmp over the strings' own
    /// storage when both are native (`elementsEqual`, byte by byte, was a large
    /// share of a coordinated write's work; copying the strings to reach
    /// `withUTF8` cost a retain and a release each).
    package static func same(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        let compared = x.withContiguousStorageIfAvailable { left in
            y.withContiguousStorageIfAvailable { right in
                guard let l = left.baseAddress, let r = right.baseAddress else { return true } // both empty
                return memcmp(l, r, left.count) == 0
            }
        }
        if let compared, let compared { return compared }
        return x.elementsEqual(y) // a bridged or otherwise foreign string
    }
}
