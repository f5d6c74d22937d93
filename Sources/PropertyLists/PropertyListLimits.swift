/// The limits every property-list reader of this package enforces, so that a
/// hostile file costs bounded time, memory and stack.
package enum PropertyListLimits {
    /// Deepest nesting of arrays and dictionaries (the root is depth 1). Apple's
    /// own writers never come near it; readers walk with an explicit stack, so the
    /// limit bounds memory and what later code may recurse over, not the reader.
    package static let maximumDepth = 512

    /// Most values one file may expand to (each scalar and container counts once
    /// per place it appears). A binary list may reference one object from many
    /// places; without this bound a few kilobytes could stand for billions of values.
    /// The binary reader also allows no more than twice the file's size in bytes
    /// (at least 65,536).
    package static let maximumValues = 5_000_000
}
