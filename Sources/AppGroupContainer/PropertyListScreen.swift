import Foundation

/// A check of property-list bytes before Foundation parses them.
///
/// Foundation's readers trust their input in ways a file planted in a shared
/// container can exploit, so every reader of a file another process may have
/// written asks here first:
/// - binary property lists may hold sets (object marker `0xC_`); no defaults suite,
///   keychain or entitlements file contains one, and Linux's Foundation crashes (a
///   null dereference while bridging the set) on one;
/// - `PropertyListDecoder` parses XML recursively, so an XML list nested 10,000
///   deep overflows the stack and kills the process (a signal, not an error);
///   `PropertyListSerialization` stops deeper than about 512 levels, the decoder
///   does not. Nesting is therefore bounded here, for every format, by a scan
///   that uses constant stack whatever the input.
package enum PropertyListScreen {
    /// The deepest nesting of arrays and dictionaries accepted. Nothing the package
    /// writes comes near it; CoreFoundation's own parser refuses deeper lists too.
    package static let maximumDepth = 512

    /// The largest property list screened by default (64 MiB): callers reading a
    /// file pass their own, smaller limit.
    package static let defaultSizeLimit = 64 << 20

    /// Why `data` must not be handed to Foundation's property-list readers, or nil
    /// when it may (it may still fail to parse: that is the parser's to say).
    ///
    /// Refuses data over `sizeLimit` bytes, binary lists with a set, a damaged
    /// offset table, a reference cycle or nesting deeper than ``maximumDepth``, and
    /// XML or OpenStep text nested deeper than ``maximumDepth``. Constant stack and
    /// memory linear in the input; no recursion.
    package static func problem(in data: Data, sizeLimit: Int = defaultSizeLimit) -> String? {
        if data.count > sizeLimit {
            return "a property list of \(data.count) bytes, over the \(sizeLimit)-byte limit for this file"
        }
        if data.starts(with: Array("bplist".utf8)) { return BinaryPropertyListScan.problem(in: data, maximumDepth: maximumDepth) }
        return TextPropertyListScan.problem(in: data, maximumDepth: maximumDepth)
    }
}
