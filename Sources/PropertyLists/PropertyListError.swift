/// Why bytes are not a property list this package reads, or a value cannot be
/// written as one. The message says what and where (a byte offset or an object
/// number); ``PropertyListCodec`` callers add the file and what to do.
package struct PropertyListError: Error, Sendable, Hashable, CustomStringConvertible {
    package let message: String

    package init(_ message: String) { self.message = message }

    package var description: String { message }
}
