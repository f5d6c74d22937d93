import Foundation

/// Reads Apple's binary property-list format, `bplist00`.
///
/// Strict on hostile input: every offset, reference and length is checked
/// against the file before use; a cycle of containers, nesting deeper than
/// ``PropertyListLimits/maximumDepth`` or more than ``PropertyListLimits/maximumValues``
/// values is refused; the walk keeps its own stack, so no input can overflow the
/// thread's. Sets, UIDs and null objects, which no property list of this
/// package's kinds holds, are refused with a message naming the object.
package enum BinaryPropertyListReader {
    /// True when `data` begins with "bplist", the binary format's magic: its bytes
    /// compared in place (`Data.starts(with:)` iterated them one at a time, a
    /// thirtieth of a read of a suite after another process's save).
    package static func isBinary(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            raw.count >= 6 && raw[0] == 0x62 && raw[1] == 0x70 && raw[2] == 0x6C && raw[3] == 0x69 && raw[4] == 0x73 && raw[5] == 0x74
        }
    }

    /// The value `data` holds.
    /// - Throws: ``PropertyListError`` saying what is wrong and where.
    /// - Parameter allowingUIDs: read a UID (a keyed archive's object reference) as
    ///   the integer it holds instead of refusing it; for checking archives before
    ///   `NSKeyedUnarchiver` sees them, never for storing.
    package static func read(_ data: Data, allowingUIDs: Bool = false) throws(PropertyListError) -> PropertyListTree {
        try data.withBytes { (raw) throws(PropertyListError) in
            var parser = try Parser(raw.bindMemory(to: UInt8.self), allowingUIDs: allowingUIDs)
            defer { parser.release() }
            return try parser.run(from: parser.top)
        }
    }

    /// Checks `data` exactly as ``read(_:allowingUIDs:)`` would, building no value,
    /// and returns the top object's kind (an empty array or dictionary, or the
    /// scalar itself). A fraction of a read's work: a reader that then needs one
    /// key takes it with ``value(forKey:inCheckedDictionary:)`` instead of decoding
    /// every value.
    /// - Throws: the ``PropertyListError`` `read` would throw.
    package static func check(_ data: Data) throws(PropertyListError) -> PropertyListTree {
        try check(data, lookingUp: nil).root
    }

    /// ``check(_:)``, and the value of exactly `key` in the top dictionary as
    /// ``value(forKey:inCheckedDictionary:)`` gives it, found on the check's own
    /// pass over the keys (nil `key`: none looked up).
    /// - Throws: the ``PropertyListError`` `read` would throw.
    package static func check(_ data: Data, lookingUp key: String?) throws(PropertyListError) -> (root: PropertyListTree, value: PropertyListTree?) {
        try data.withBytes { (raw) throws(PropertyListError) in
            var parser = try Parser(raw.bindMemory(to: UInt8.self), allowingUIDs: false)
            defer { parser.release() }
            guard var target = key else { return (try parser.checkEither(lookingUp: nil).root, nil) }
            return try target.withUTF8Bytes { (utf8) throws(PropertyListError) in
                let (root, found) = try parser.checkEither(lookingUp: utf8)
                guard let found else { return (root, nil) }
                // The whole file passed: decode that one value, counted afresh.
                parser.seen = 0
                return (root, try parser.run(from: found))
            }
        }
    }

    /// The value of exactly `key` (compared as ``ExactKey`` compares: code for code,
    /// no normalization) in the top dictionary of `data`, decoding that value alone;
    /// of a key given twice, the last value (as `read` keeps it). Nil when the key is
    /// absent or the top object is not a dictionary. For data that ``check(_:)``
    /// accepted; on other data it throws what `read` would, or finds what it can.
    package static func value(forKey key: String, inCheckedDictionary data: Data) throws(PropertyListError) -> PropertyListTree? {
        var key = key
        return try key.withUTF8Bytes { (utf8) throws(PropertyListError) in
            try data.withBytes { (raw) throws(PropertyListError) in
                var parser = try Parser(raw.bindMemory(to: UInt8.self), allowingUIDs: false)
                defer { parser.release() }
                guard let child = try parser.child(forKey: utf8) else { return nil }
                return try parser.run(from: child)
            }
        }
    }

    /// An open array or dictionary of the full read. Its children so far sit at the
    /// end of the parser's `children`, from `base` on (with their keys; an array's
    /// are empty): one stack for the whole walk, where an array per container
    /// would allocate for each.
    struct Frame {
        let object: Int
        let isDictionary: Bool
        /// Byte offset of the first reference (for a dictionary, the first key's).
        let refs: Int
        let count: Int
        let base: Int
        var next = 0
        /// Its key in the dictionary that holds it ("" in an array or at the top).
        var key = ""
    }
}

extension BinaryPropertyListReader.Parser {
    /// The value of `first` (the top object, or one value of it) and all it holds:
    /// the full read's walk, each object checked by ``inspect(_:)`` and built.
    mutating func run(from first: Int) throws(PropertyListError) -> PropertyListTree {
        if let scalar = try start(first) { return scalar }
        while let last = stack.indices.last {
            let next = stack[last].next
            let object = stack[last].object, count = stack[last].count, refs = stack[last].refs
            let isDictionary = stack[last].isDictionary
            if next < count {
                stack[last].next = next + 1
                let key = isDictionary ? try keyString(try reference(at: refs + next * refSize, in: object), in: object) : ""
                let child = try reference(at: refs + (isDictionary ? count + next : next) * refSize, in: object)
                try refuseCycle(child, in: object)
                if let scalar = try start(child) {
                    children.push((key, scalar))
                } else {
                    stack[stack.count - 1].key = key
                }
                continue
            }
            let frame = stack.removeLast()
            onPath[object] = false
            let value: PropertyListTree = isDictionary
                ? .dictionary(PropertyListDictionary(children.popEntries(from: frame.base)))
                : .array(children.popValues(from: frame.base))
            if stack.isEmpty { return value }
            children.push((frame.key, value))
        }
        throw PropertyListError("a truncated or damaged binary property list: nothing was read")
    }

    /// Decodes a scalar, or pushes a container's frame and returns nil.
    private mutating func start(_ object: Int) throws(PropertyListError) -> PropertyListTree? {
        let checked = try inspect(object)
        guard checked.isContainer else { return scalar(checked) }
        try open(object, depth: stack.count)
        stack.append(BinaryPropertyListReader.Frame(object: object, isDictionary: checked.isDictionary, refs: checked.content,
                                                    count: checked.count, base: children.count))
        // Room for its children at once (n is bounded by the file's size).
        children.reserve(checked.count)
        return nil
    }

    /// The value of a scalar ``inspect(_:)`` accepted.
    func scalar(_ checked: BinaryPropertyListReader.Checked) -> PropertyListTree {
        let at = checked.content, n = checked.count
        switch checked.marker >> 4 {
        case 0x0:
            return .bool(checked.marker == 0x09)
        case 0x1:
            switch n {
            case 1, 2, 4: return .integer(PropertyListInteger(unsigned(at: at, size: n)))
            case 8: return .integer(.signed(Int64(bitPattern: unsigned(at: at, size: 8))))
            default:
                // 16 bytes: zero above an unsigned value, or all ones above a negative one.
                let high = unsigned(at: at, size: 8), low64 = unsigned(at: at + 8, size: 8)
                return high == 0 ? .integer(PropertyListInteger(low64)) : .integer(.signed(Int64(bitPattern: low64)))
            }
        case 0x2:
            if n == 4 { return .real(Double(Float(bitPattern: UInt32(unsigned(at: at, size: 4))))) }
            return .real(Double(bitPattern: unsigned(at: at, size: 8)))
        case 0x3:
            return .date(Double(bitPattern: unsigned(at: at, size: 8)))
        case 0x4:
            return .data(Data(UnsafeBufferPointer(rebasing: bytes[at..<at + n])))
        case 0x5:
            return .string(String(decoding: UnsafeBufferPointer(rebasing: bytes[at..<at + n]), as: UTF8.self))
        case 0x6:
            return .string(utf16(at: at, units: n))
        default:
            // 0x8, a UID where the caller allowed them: the integer it holds.
            return .integer(PropertyListInteger(unsigned(at: at, size: n)))
        }
    }

    /// A dictionary's key: the string object `object`, checked and decoded.
    private mutating func keyString(_ object: Int, in dictionary: Int) throws(PropertyListError) -> String {
        let checked = try key(object, in: dictionary)
        if checked.marker >> 4 == 0x5 {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[checked.content..<checked.content + checked.count]), as: UTF8.self)
        }
        return utf16(at: checked.content, units: checked.count)
    }

    /// The checked UTF-16 string at `at` (no unpaired surrogate: ``inspect(_:)`` refused those).
    private func utf16(at: Int, units: Int) -> String {
        var scalars = String.UnicodeScalarView()
        try? forEachScalar(at: at, units: units, object: 0) { scalars.append($0) }
        return String(scalars)
    }
}
