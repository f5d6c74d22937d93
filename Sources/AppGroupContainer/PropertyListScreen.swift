import Foundation

/// A check of property-list bytes before Foundation parses them.
///
/// Binary property lists may hold sets (object marker `0xC_`). No defaults suite,
/// keychain or entitlements file contains one, but a file planted in a shared
/// container can, and Linux's Foundation crashes (a null dereference while
/// bridging the set) inside `PropertyListSerialization.propertyList(from:)` and
/// `PropertyListDecoder` when it meets one. So every reader of a file another
/// process may have written asks here first; XML and OpenStep lists have no sets.
public enum PropertyListScreen {
    /// Why `data` must not be handed to Foundation's property-list readers, or nil
    /// when it may (it may still fail to parse: that is the parser's to say).
    ///
    /// Walks the binary format's trailer and offset table, with every index
    /// checked, and looks at each object's marker: constant memory, no recursion.
    public static func problem(in data: Data) -> String? {
        guard data.starts(with: Array("bplist".utf8)) else { return nil }
        return data.withUnsafeBytes { raw -> String? in
            let bytes = raw.bindMemory(to: UInt8.self)
            let count = bytes.count
            let trailerSize = 32
            let damaged = "a truncated or damaged binary property list of \(count) bytes (its trailer or offset table is out of bounds)"
            guard count >= 8 + trailerSize else { return damaged }
            let trailer = count - trailerSize
            // A big-endian unsigned integer of `size` bytes at `offset`, nil when out of bounds.
            func integer(at offset: Int, size: Int) -> Int? {
                guard size >= 1, size <= 8, offset >= 0, offset <= count - size else { return nil }
                var value: UInt64 = 0
                for i in 0..<size { value = value << 8 | UInt64(bytes[offset + i]) }
                return value > UInt64(Int.max) ? nil : Int(value)
            }
            let offsetSize = Int(bytes[trailer + 6])
            guard (1...8).contains(offsetSize),
                  let objects = integer(at: trailer + 8, size: 8),
                  let table = integer(at: trailer + 24, size: 8),
                  table >= 8, table <= trailer,
                  objects <= (trailer - table) / offsetSize else { return damaged }
            for index in 0..<objects {
                guard let offset = integer(at: table + index * offsetSize, size: offsetSize), offset >= 8, offset < table else {
                    return damaged
                }
                if bytes[offset] >> 4 == 0xC {
                    return "a binary property list holding a set (object \(index)), which no defaults, keychain or entitlements file contains"
                }
            }
            return nil
        }
    }
}
