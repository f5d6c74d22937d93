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

    /// True when `a` and `b` are the same bytes: one memcmp for native strings
    /// (`elementsEqual`, byte by byte, was a quarter of a coordinated write's
    /// instructions, in the lock-slot lookup).
    package static func same(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard let left = x.baseAddress, let right = y.baseAddress else { return x.count == y.count }
                return memcmp(left, right, x.count) == 0
            }
        }
    }
}
