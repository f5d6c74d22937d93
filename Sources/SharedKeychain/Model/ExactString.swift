/// A string compared by its code units, as CFString compares keychain attributes.
///
/// Swift's `String` equality is canonical equivalence: "caf\u{E9}" == "cafe\u{301}".
/// The keychain on iOS keeps those as two accounts (two items), so every attribute
/// comparison in the engine (matching, duplicate detection, update, delete, access
/// groups) goes through this type or ``String/isExactly(_:)``, never `==`.
struct ExactString: Hashable, Sendable {
    let value: String

    init(_ value: String) { self.value = value }

    static func == (a: ExactString, b: ExactString) -> Bool { a.value.isExactly(b.value) }

    func hash(into hasher: inout Hasher) {
        hasher.combine(value.utf8.count)
        for byte in value.utf8 { hasher.combine(byte) }
    }
}

extension String {
    /// True when both strings hold the same Unicode scalars in the same order
    /// (so the same UTF-16 code units): no normalization.
    func isExactly(_ other: String) -> Bool { utf8.elementsEqual(other.utf8) }
}
