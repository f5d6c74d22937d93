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
    /// The value `data` holds.
    /// - Throws: ``PropertyListError`` saying what is wrong and where.
    /// - Parameter allowingUIDs: read a UID (a keyed archive's object reference) as
    ///   the integer it holds instead of refusing it; for checking archives before
    ///   `NSKeyedUnarchiver` sees them, never for storing.
    package static func read(_ data: Data, allowingUIDs: Bool = false) throws(PropertyListError) -> PropertyListTree {
        try data.withBytes { (raw) throws(PropertyListError) in
            var parser = try Parser(raw.bindMemory(to: UInt8.self), allowingUIDs: allowingUIDs, building: true)
            defer { parser.release() }
            return try parser.run(from: parser.top)
        }
    }

    /// Checks `data` exactly as ``read(_:allowingUIDs:)`` would, building no value,
    /// and returns the top object's kind (an empty value of it: `.dictionary` with
    /// no entries for a dictionary). About a third of a read's work: a reader that
    /// then needs one key takes it with ``value(forKey:inCheckedDictionary:)``
    /// instead of decoding every value.
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
            var parser = try Parser(raw.bindMemory(to: UInt8.self), allowingUIDs: false, building: false)
            defer { parser.release() }
            guard var target = key else { return (try parser.run(from: parser.top), nil) }
            return try target.withUTF8Bytes { (utf8) throws(PropertyListError) in
                parser.lookup = utf8
                let root = try parser.run(from: parser.top)
                guard let found = parser.found else { return (root, nil) }
                // The whole file passed: decode that one value, counted afresh.
                parser.building = true
                parser.lookup = nil
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
                var parser = try Parser(raw.bindMemory(to: UInt8.self), allowingUIDs: false, building: true)
                defer { parser.release() }
                guard let child = try parser.child(forKey: utf8) else { return nil }
                return try parser.run(from: child)
            }
        }
    }

    /// An open array or dictionary. Its children so far sit at the end of the
    /// parser's `children`, from `base` on (with their keys; an array's are empty):
    /// one stack for the whole walk, where an array per container would allocate for each.
    private struct Frame {
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

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        let offsetSize: Int
        let refSize: Int
        let objectCount: Int
        let top: Int
        let table: Int
        /// Containers open on the way from the top object (a cycle revisits one).
        let onPath: UnsafeMutableBufferPointer<Bool>
        var stack: [Frame] = []
        var children: EntryStack
        var seen = 0
        let uids: Bool
        /// False when only checking (``check(_:)``): every test is made, no value built.
        var building: Bool
        /// While checking: the key (UTF-8) whose value object in the top dictionary
        /// to note in `found` (the last one of a key given twice).
        var lookup: UnsafeBufferPointer<UInt8>?
        var found: Int?

        init(_ bytes: UnsafeBufferPointer<UInt8>, allowingUIDs: Bool, building: Bool) throws(PropertyListError) {
            self.bytes = bytes
            self.uids = allowingUIDs
            self.building = building
            let count = bytes.count
            guard count >= 8, bytes[0] == 0x62, bytes[1] == 0x70, bytes[2] == 0x6C, bytes[3] == 0x69,
                  bytes[4] == 0x73, bytes[5] == 0x74 else {
                throw PropertyListError("not a binary property list (it does not begin with \"bplist\")")
            }
            guard bytes[6] == 0x30, bytes[7] == 0x30 else {
                let version = String(decoding: [bytes[6], bytes[7]], as: UTF8.self)
                throw PropertyListError("a binary property list of version \"\(version)\"; only version \"00\" is read")
            }
            guard count >= 8 + 1 + 32 else {
                throw PropertyListError("a truncated binary property list of \(count) bytes (shorter than its header and trailer)")
            }
            let trailer = count - 32
            offsetSize = Int(bytes[trailer + 6])
            refSize = Int(bytes[trailer + 7])
            func word(_ at: Int) -> UInt64 {
                var v: UInt64 = 0
                for i in 0..<8 { v = v << 8 | UInt64(bytes[at + i]) }
                return v
            }
            let objects = word(trailer + 8), topObject = word(trailer + 16), tableOffset = word(trailer + 24)
            guard (1...8).contains(offsetSize), (1...8).contains(refSize) else {
                throw PropertyListError("a truncated or damaged binary property list: its trailer gives offset size \(offsetSize) and reference size \(refSize) (each must be 1 to 8)")
            }
            guard tableOffset >= 9, tableOffset <= UInt64(trailer) else {
                throw PropertyListError("a truncated or damaged binary property list: its offset table at \(tableOffset) is outside the file (\(count) bytes)")
            }
            table = Int(tableOffset)
            guard objects >= 1, objects <= UInt64((trailer - table) / offsetSize) else {
                throw PropertyListError("a truncated or damaged binary property list: its trailer claims \(objects) objects, but the offset table holds at most \((trailer - table) / offsetSize)")
            }
            objectCount = Int(objects)
            guard topObject < objects else {
                throw PropertyListError("a truncated or damaged binary property list: its top object \(topObject) is not among its \(objects) objects")
            }
            top = Int(topObject)
            // Allocated last: nothing can throw after, so `read` always frees them.
            onPath = .allocate(capacity: objectCount)
            onPath.initialize(repeating: false)
            children = EntryStack()
        }

        /// A big-endian unsigned integer of `size` (1...8) bytes at `at`, which the caller has bounds-checked.
        @inline(__always)
        private func unsigned(at: Int, size: Int) -> UInt64 {
            // References and offsets are one or two bytes in all but huge files.
            if size == 1 { return UInt64(bytes[at]) }
            if size == 2 { return UInt64(bytes[at]) << 8 | UInt64(bytes[at + 1]) }
            var v: UInt64 = 0
            for i in 0..<size { v = v << 8 | UInt64(bytes[at + i]) }
            return v
        }

        /// Fails unless `size` bytes from `at` lie within the object area (before the offset table).
        @inline(__always)
        private func need(_ at: Int, _ size: Int, _ object: Int) throws(PropertyListError) {
            guard at >= 8, size >= 0, at <= table, size <= table - at else {
                throw PropertyListError("a truncated or damaged binary property list: object \(object) at byte \(at) needs \(size) bytes, past the end of the object area (byte \(table))")
            }
        }

        @inline(__always)
        private func offset(of object: Int) throws(PropertyListError) -> Int {
            let at = table + object * offsetSize
            let value = unsigned(at: at, size: offsetSize)
            guard value >= 8, value < UInt64(table) else {
                throw PropertyListError("a truncated or damaged binary property list: object \(object) has offset \(value), outside the object area (bytes 8 to \(table))")
            }
            return Int(value)
        }

        @inline(__always)
        private func reference(at: Int, in object: Int) throws(PropertyListError) -> Int {
            let value = unsigned(at: at, size: refSize)
            guard value < UInt64(objectCount) else {
                throw PropertyListError("a truncated or damaged binary property list: object \(object) refers to object \(value), but there are only \(objectCount)")
            }
            return Int(value)
        }

        /// The element count of the object whose marker is at `at`, and where its content begins.
        ///
        /// This and the other helpers the walk calls without inlining are `mutating`
        /// though they change nothing: called from the mutating walk, a non-mutating
        /// method got a copy of the whole parser (150 bytes, and the stack array's
        /// reference) at each call, a quarter of a check's time (perf, issue 14).
        @inline(__always)
        private mutating func length(at: Int, marker: UInt8, object: Int) throws(PropertyListError) -> (count: Int, content: Int) {
            let low = Int(marker & 0x0F)
            if low != 0x0F { return (low, at + 1) }
            return try longLength(at: at, object: object)
        }

        /// ``length(at:marker:object:)`` of 15 elements or more: an integer object follows the marker.
        private mutating func longLength(at: Int, object: Int) throws(PropertyListError) -> (count: Int, content: Int) {
            try need(at + 1, 1, object)
            let intMarker = bytes[at + 1]
            guard intMarker >> 4 == 0x1, intMarker & 0x0F <= 3 else {
                throw PropertyListError("a truncated or damaged binary property list: object \(object) at byte \(at) has a length that is not an integer of 1 to 8 bytes")
            }
            let size = 1 << Int(intMarker & 0x0F)
            try need(at + 2, size, object)
            let value = unsigned(at: at + 2, size: size)
            guard value <= UInt64(table) else {
                throw PropertyListError("a truncated or damaged binary property list: object \(object) claims \(value) elements, more than the file holds")
            }
            return (Int(value), at + 2 + size)
        }

        @inline(__always)
        private mutating func count(_ object: Int) throws(PropertyListError) {
            seen += 1
            if seen > budget {
                throw PropertyListError("a binary property list of \(bytes.count) bytes expanding to more than \(budget) values (objects referenced from many places); refused")
            }
        }

        /// Values this file may expand to. Every place a value appears costs at least
        /// one reference byte unless a container is shared (which Apple's writer never
        /// does, Python's only for one object used twice), so a file far beyond its
        /// size is hostile: refused after work proportional to the file, not to the limit.
        private var budget: Int { min(PropertyListLimits.maximumValues, max(65_536, 2 * bytes.count)) }

        mutating func release() {
            onPath.deallocate()
            children.release()
        }

        /// The value of `first` (the top object, or one value of it) and all it holds.
        mutating func run(from first: Int) throws(PropertyListError) -> PropertyListTree {
            if let scalar = try start(first) { return scalar }
            while let last = stack.indices.last {
                let next = stack[last].next
                let object = stack[last].object, count = stack[last].count, refs = stack[last].refs
                let isDictionary = stack[last].isDictionary
                if next < count {
                    stack[last].next = next + 1
                    let keyObject = isDictionary ? try reference(at: refs + next * refSize, in: object) : 0
                    let key = isDictionary ? try keyString(keyObject, in: object) : ""
                    let child = try reference(at: refs + (isDictionary ? count + next : next) * refSize, in: object)
                    if let lookup, last == 0, object == top, isDictionary, try keyEquals(keyObject, lookup) { found = child }
                    if onPath[child] {
                        throw PropertyListError("a binary property list with a cycle: object \(child) contains itself (through object \(object))")
                    }
                    if let scalar = try start(child) {
                        if building { children.push((key, scalar)) }
                    } else {
                        stack[stack.count - 1].key = key
                    }
                    continue
                }
                let frame = stack.removeLast()
                onPath[object] = false
                guard building else {
                    if stack.isEmpty { return isDictionary ? .dictionary(PropertyListDictionary()) : .array([]) }
                    continue
                }
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
            try count(object)
            let at = try offset(of: object)
            let marker = bytes[at]
            let low = Int(marker & 0x0F)
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                default:
                    throw PropertyListError("a binary property list holding a null or fill object (object \(object), marker 0x\(String(marker, radix: 16))), which no defaults, keychain or entitlements file contains")
                }
            case 0x1:
                guard low <= 4 else { throw bad(object, marker) }
                let size = 1 << low
                try need(at + 1, size, object)
                switch size {
                case 1, 2, 4: return .integer(PropertyListInteger(unsigned(at: at + 1, size: size)))
                case 8: return .integer(.signed(Int64(bitPattern: unsigned(at: at + 1, size: 8))))
                default:
                    let high = unsigned(at: at + 1, size: 8), low64 = unsigned(at: at + 9, size: 8)
                    if high == 0 { return .integer(PropertyListInteger(low64)) }
                    if high == UInt64.max, low64 >= 1 << 63 { return .integer(.signed(Int64(bitPattern: low64))) }
                    throw PropertyListError("a binary property list holding an integer wider than 64 bits (object \(object)); refused")
                }
            case 0x2:
                if low == 2 {
                    try need(at + 1, 4, object)
                    return .real(Double(Float(bitPattern: UInt32(unsigned(at: at + 1, size: 4)))))
                }
                guard low == 3 else { throw bad(object, marker) }
                try need(at + 1, 8, object)
                return .real(Double(bitPattern: unsigned(at: at + 1, size: 8)))
            case 0x3:
                guard marker == 0x33 else { throw bad(object, marker) }
                try need(at + 1, 8, object)
                return .date(Double(bitPattern: unsigned(at: at + 1, size: 8)))
            case 0x4:
                let (n, content) = try length(at: at, marker: marker, object: object)
                try need(content, n, object)
                return .data(building ? Data(UnsafeBufferPointer(rebasing: bytes[content..<content + n])) : Data())
            case 0x5, 0x6:
                return .string(try string(at: at, marker: marker, object: object))
            case 0x8:
                if uids, low <= 7 {
                    try need(at + 1, low + 1, object)
                    return .integer(PropertyListInteger(unsigned(at: at + 1, size: low + 1)))
                }
                throw PropertyListError("a binary property list holding a UID (object \(object)), a keyed-archiver reference that no defaults, keychain or entitlements file contains")
            case 0xA, 0xD:
                let isDictionary = marker >> 4 == 0xD
                let (n, content) = try length(at: at, marker: marker, object: object)
                let slots = isDictionary ? 2 : 1
                try need(content, 0, object)
                guard n <= (table - content) / (refSize * slots) else { throw tooMany(object, n) }
                try need(content, n * refSize * slots, object)
                if stack.count >= PropertyListLimits.maximumDepth {
                    throw PropertyListError("a property list nested deeper than \(PropertyListLimits.maximumDepth) levels of arrays and dictionaries (at object \(object)); refused")
                }
                stack.append(Frame(object: object, isDictionary: isDictionary, refs: content, count: n, base: children.count))
                // Room for its children at once (n is bounded by the file's size).
                if building { children.reserve(n) }
                onPath[object] = true
                return nil
            case 0xC:
                throw PropertyListError("a binary property list holding a set (object \(object)), which no defaults, keychain or entitlements file contains")
            default:
                throw bad(object, marker)
            }
        }

        private mutating func keyString(_ object: Int, in dictionary: Int) throws(PropertyListError) -> String {
            try count(object)
            let at = try offset(of: object)
            let marker = bytes[at]
            guard marker >> 4 == 0x5 || marker >> 4 == 0x6 else {
                throw PropertyListError("a binary property list whose dictionary (object \(dictionary)) has a key that is not a string (object \(object))")
            }
            return try string(at: at, marker: marker, object: object)
        }

        /// The ASCII (0x5) or UTF-16 (0x6) string whose marker is at `at`.
        private mutating func string(at: Int, marker: UInt8, object: Int) throws(PropertyListError) -> String {
            let (n, content) = try length(at: at, marker: marker, object: object)
            if marker >> 4 == 0x5 {
                try need(content, n, object)
                let slice = UnsafeBufferPointer(rebasing: bytes[content..<content + n])
                guard Self.isASCII(slice) else {
                    throw PropertyListError("a binary property list with a non-ASCII byte in an ASCII string (object \(object)); such strings must be UTF-16")
                }
                return building ? String(decoding: slice, as: UTF8.self) : ""

            }
            try need(content, 0, object)
            guard n <= (table - content) / 2 else { throw tooMany(object, n) }
            try need(content, n * 2, object)
            return try utf16(at: content, units: n, object: object)
        }

        /// True when no byte has its high bit set.
        private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            guard let base = bytes.baseAddress else { return true }
            var bits: UInt8 = 0
            for i in 0..<bytes.count { bits |= base[i] }
            return bits & 0x80 == 0
        }

        private mutating func utf16(at: Int, units: Int, object: Int) throws(PropertyListError) -> String {
            var scalars = String.UnicodeScalarView()
            try forEachScalar(at: at, units: units, object: object) { if building { scalars.append($0) } }
            return String(scalars)
        }

        /// Calls `body` with each scalar of the UTF-16 (big-endian) string at `at`;
        /// throws on an unpaired surrogate.
        @inline(__always)
        private func forEachScalar(at: Int, units: Int, object: Int, _ body: (Unicode.Scalar) -> Void) throws(PropertyListError) {
            var i = 0
            while i < units {
                let unit = UInt16(unsigned(at: at + 2 * i, size: 2))
                i += 1
                if unit & 0xFC00 == 0xD800, i < units {
                    let next = UInt16(unsigned(at: at + 2 * i, size: 2))
                    if next & 0xFC00 == 0xDC00, let scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(next) - 0xDC00)) {
                        body(scalar)
                        i += 1
                        continue
                    }
                }
                guard let scalar = Unicode.Scalar(unit) else {
                    throw PropertyListError("a binary property list with an unpaired UTF-16 surrogate (0x\(String(unit, radix: 16))) in a string (object \(object)); refused rather than altered")
                }
                body(scalar)
            }
        }

        /// The value object under exactly `key` (its UTF-8 bytes) in the top
        /// dictionary: the last one of a key given twice; nil when there is none or
        /// the top object is no dictionary. Keys are compared in the file, no key
        /// is decoded: an ASCII key byte for byte, a UTF-16 key scalar by scalar.
        mutating func child(forKey key: UnsafeBufferPointer<UInt8>) throws(PropertyListError) -> Int? {
            let at = try offset(of: top)
            let marker = bytes[at]
            guard marker >> 4 == 0xD else { return nil }
            let (n, refs) = try length(at: at, marker: marker, object: top)
            try need(refs, 0, top)
            guard n <= (table - refs) / (refSize * 2) else { throw tooMany(top, n) }
            try need(refs, n * refSize * 2, top)
            var found: Int?
            for i in 0..<n where try keyEquals(try reference(at: refs + i * refSize, in: top), key) {
                found = i
            }
            return try found.map { (i) throws(PropertyListError) in try reference(at: refs + (n + i) * refSize, in: top) }
        }

        /// Whether the string object `object` is exactly `key` (UTF-8 bytes).
        private mutating func keyEquals(_ object: Int, _ key: UnsafeBufferPointer<UInt8>) throws(PropertyListError) -> Bool {
            let at = try offset(of: object)
            let marker = bytes[at]
            let (n, content) = try length(at: at, marker: marker, object: object)
            if marker >> 4 == 0x5 {
                // ASCII: equal bytes, or no match (a non-ASCII key is never ASCII in a file).
                guard n == key.count else { return false }
                try need(content, n, object)
                guard let left = key.baseAddress, let base = bytes.baseAddress else { return n == 0 }
                return memcmp(left, base + content, n) == 0
            }
            guard marker >> 4 == 0x6 else { return false }
            // UTF-16: at least one unit per scalar, at most one per key byte.
            guard n <= key.count, n * 3 >= key.count else { return false }
            try need(content, n * 2, object)
            var utf8 = key.makeIterator()
            var equal = true
            try forEachScalar(at: content, units: n, object: object) { scalar in
                guard equal, let encoded = UTF8.encode(scalar) else { equal = false; return }
                for byte in encoded where utf8.next() != byte { equal = false }
            }
            return equal && utf8.next() == nil
        }

        private func tooMany(_ object: Int, _ n: Int) -> PropertyListError {
            PropertyListError("a truncated or damaged binary property list: object \(object) claims \(n) elements, more than the file holds")
        }

        private func bad(_ object: Int, _ marker: UInt8) -> PropertyListError {
            PropertyListError("a truncated or damaged binary property list: object \(object) has the unknown marker 0x\(String(marker, radix: 16))")
        }
    }
}
