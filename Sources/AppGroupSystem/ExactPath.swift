/// A path compared and hashed by its exact UTF-8 bytes.
///
/// Swift's `String` equality is canonical equivalence: ".../caf\u{E9}" and
/// ".../cafe\u{301}" are equal Strings, yet two different files to the kernel.
/// Every table or comparison of paths uses this instead, so one file's lock is
/// never taken for the other's.
package struct ExactPath: Hashable, Sendable {
    package let string: String

    package init(_ string: String) { self.string = string }

    package static func == (a: ExactPath, b: ExactPath) -> Bool { a.string.utf8.elementsEqual(b.string.utf8) }

    package func hash(into hasher: inout Hasher) {
        let hashed: Void? = string.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil { for byte in string.utf8 { hasher.combine(byte) } }
    }

    /// True when `a` and `b` are the same bytes.
    package static func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }
}
