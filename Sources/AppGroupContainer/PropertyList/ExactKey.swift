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
        a.string.utf8.elementsEqual(b.string.utf8)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(string.utf8.count)
        for byte in string.utf8 { hasher.combine(byte) }
    }
}
