import Foundation

extension BinaryPropertyListReader {
    /// One object of a binary property list, checked where it lies: its marker,
    /// where its content begins and its length (bytes of an integer, real, date or
    /// data, ASCII bytes, UTF-16 units, or references of a container).
    struct Checked {
        let marker: UInt8
        let content: Int
        let count: Int

        var isContainer: Bool { marker >> 4 == 0xA || marker >> 4 == 0xD }
        var isDictionary: Bool { marker >> 4 == 0xD }
        var isString: Bool { marker >> 4 == 0x5 || marker >> 4 == 0x6 }
    }

    /// A binary property list's trailer and offset table, and the tests every object
    /// must pass. ``inspect(_:)`` is the one place an object is checked: the full
    /// read builds values from what it accepts, the check (``checkAll(lookingUp:)``)
    /// builds nothing, so the two refuse exactly the same files.
    struct Parser {
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
        /// Values this file may expand to. Every place a value appears costs at least
        /// one reference byte unless a container is shared (which Apple's writer never
        /// does, Python's only for one object used twice), so a file far beyond its
        /// size is hostile: refused after work proportional to the file, not to the limit.
        let budget: Int
        let uids: Bool

        init(_ bytes: UnsafeBufferPointer<UInt8>, allowingUIDs: Bool) throws(PropertyListError) {
            self.bytes = bytes
            self.uids = allowingUIDs
            let count = bytes.count
            budget = min(PropertyListLimits.maximumValues, max(65_536, 2 * count))
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
            // Allocated last: nothing can throw after, so the caller always frees them.
            onPath = .allocate(capacity: objectCount)
            onPath.initialize(repeating: false)
            children = EntryStack()
        }

        mutating func release() {
            onPath.deallocate()
            children.release()
        }

        // MARK: Reading the layout

        /// A big-endian unsigned integer of `size` (1...8) bytes at `at`, which the caller has bounds-checked.
        @inline(__always)
        func unsigned(at: Int, size: Int) -> UInt64 {
            // References and offsets are one or two bytes in all but huge files.
            if size == 1 { return UInt64(bytes[at]) }
            if size == 2 { return UInt64(bytes[at]) << 8 | UInt64(bytes[at + 1]) }
            var v: UInt64 = 0
            for i in 0..<size { v = v << 8 | UInt64(bytes[at + i]) }
            return v
        }

        /// Fails unless `size` bytes from `at` lie within the object area (before the offset table).
        @inline(__always)
        func need(_ at: Int, _ size: Int, _ object: Int) throws(PropertyListError) {
            guard at >= 8, size >= 0, at <= table, size <= table - at else {
                throw Problem.pastEnd(object, at: at, size: size, table: table).error()
            }
        }

        @inline(__always)
        func offset(of object: Int) throws(PropertyListError) -> Int {
            // `object` is below `objectCount` (a checked reference or the top), so the
            // entry lies in the table: no overflow to check.
            let at = table &+ object &* offsetSize
            let value = unsigned(at: at, size: offsetSize)
            guard value >= 8, value < UInt64(table) else {
                throw Problem.offset(object, value, table: table).error()
            }
            return Int(value)
        }

        @inline(__always)
        func reference(at: Int, in object: Int) throws(PropertyListError) -> Int {
            let value = unsigned(at: at, size: refSize)
            guard value < UInt64(objectCount) else {
                throw Problem.reference(from: object, to: value, objects: objectCount).error()
            }
            return Int(value)
        }

        /// The element count of the object whose marker is at `at`, and where its content begins.
        ///
        /// This and the other helpers the walks call without inlining are `mutating`
        /// though they change nothing: called from a mutating walk, a non-mutating
        /// method got a copy of the whole parser (150 bytes, and the stack array's
        /// reference) at each call, a large share of a check's time.
        @inline(__always)
        mutating func length(at: Int, marker: UInt8, object: Int) throws(PropertyListError) -> (count: Int, content: Int) {
            let low = Int(marker & 0x0F)
            if low != 0x0F { return (low, at + 1) }
            return try longLength(at: at, object: object)
        }

        /// ``length(at:marker:object:)`` of 15 elements or more: an integer object follows the marker.
        private mutating func longLength(at: Int, object: Int) throws(PropertyListError) -> (count: Int, content: Int) {
            try need(at + 1, 1, object)
            let intMarker = bytes[at + 1]
            guard intMarker >> 4 == 0x1, intMarker & 0x0F <= 3 else {
                throw Problem.length(object, at: at).error()
            }
            let size = 1 << Int(intMarker & 0x0F)
            try need(at + 2, size, object)
            let value = unsigned(at: at + 2, size: size)
            guard value <= UInt64(table) else {
                throw Problem.tooMany(object, value).error()
            }
            return (Int(value), at + 2 + size)
        }

        @inline(__always)
        mutating func count(_ object: Int) throws(PropertyListError) {
            seen += 1
            if seen > budget {
                throw Problem.overBudget(fileSize: bytes.count, budget: budget).error()
            }
        }

        // MARK: Checking one object

        /// Counts one more value and checks `object` where it lies: a known marker,
        /// its content inside the object area, an ASCII string ASCII, a UTF-16 string
        /// free of unpaired surrogates, an integer within 64 bits (signed, or unsigned
        /// above Int64.max). A container's children are not looked at here.
        @inline(__always)
        mutating func inspect(_ object: Int) throws(PropertyListError) -> Checked {
            try count(object)
            let at = try offset(of: object)
            let marker = bytes[at]
            let low = Int(marker & 0x0F)
            switch marker >> 4 {
            case 0x0:
                guard marker == 0x08 || marker == 0x09 else {
                    throw Problem.null(object, marker).error()
                }
                return Checked(marker: marker, content: at + 1, count: 0)
            case 0x1:
                guard low <= 4 else { throw Problem.unknownMarker(object, marker).error() }
                let size = 1 << low
                try need(at + 1, size, object)
                if size == 16 {
                    let high = unsigned(at: at + 1, size: 8), low64 = unsigned(at: at + 9, size: 8)
                    guard high == 0 || (high == UInt64.max && low64 >= 1 << 63) else {
                        throw Problem.wideInteger(object).error()
                    }
                }
                return Checked(marker: marker, content: at + 1, count: size)
            case 0x2:
                guard low == 2 || low == 3 else { throw Problem.unknownMarker(object, marker).error() }
                try need(at + 1, 1 << low, object)
                return Checked(marker: marker, content: at + 1, count: 1 << low)
            case 0x3:
                guard marker == 0x33 else { throw Problem.unknownMarker(object, marker).error() }
                try need(at + 1, 8, object)
                return Checked(marker: marker, content: at + 1, count: 8)
            case 0x4:
                let (n, content) = try length(at: at, marker: marker, object: object)
                try need(content, n, object)
                return Checked(marker: marker, content: content, count: n)
            case 0x5:
                let (n, content) = try length(at: at, marker: marker, object: object)
                try need(content, n, object)
                guard Self.isASCII(bytes, content, n) else {
                    throw Problem.nonASCII(object).error()
                }
                return Checked(marker: marker, content: content, count: n)
            case 0x6:
                let (n, content) = try length(at: at, marker: marker, object: object)
                try need(content, 0, object)
                guard n <= (table - content) / 2 else { throw Problem.tooMany(object, UInt64(n)).error() }
                try need(content, n * 2, object)
                try forEachScalar(at: content, units: n, object: object) { _ in }
                return Checked(marker: marker, content: content, count: n)
            case 0x8:
                if uids, low <= 7 {
                    try need(at + 1, low + 1, object)
                    return Checked(marker: marker, content: at + 1, count: low + 1)
                }
                throw Problem.uid(object).error()
            case 0xA, 0xD:
                let (n, content) = try length(at: at, marker: marker, object: object)
                let slots = marker >> 4 == 0xD ? 2 : 1
                try need(content, 0, object)
                guard n <= (table - content) / (refSize * slots) else { throw Problem.tooMany(object, UInt64(n)).error() }
                try need(content, n * refSize * slots, object)
                return Checked(marker: marker, content: content, count: n)
            case 0xC:
                throw Problem.set(object).error()
            default:
                throw Problem.unknownMarker(object, marker).error()
            }
        }

        /// Opens the container `object`: nesting within ``PropertyListLimits/maximumDepth``
        /// (`depth` containers are open already), and marked on the path so that a
        /// cycle through it is refused.
        @inline(__always)
        func open(_ object: Int, depth: Int) throws(PropertyListError) {
            if depth >= PropertyListLimits.maximumDepth {
                throw Problem.tooDeep(object).error()
            }
            onPath[object] = true
        }

        /// Fails when `child` is a container already open on the way to it.
        @inline(__always)
        func refuseCycle(_ child: Int, in object: Int) throws(PropertyListError) {
            if onPath[child] {
                throw Problem.cycle(child, through: object).error()
            }
        }

        /// The key object `object` of the dictionary `dictionary`, checked: a string.
        @inline(__always)
        mutating func key(_ object: Int, in dictionary: Int) throws(PropertyListError) -> Checked {
            let checked = try inspect(object)
            guard checked.isString else {
                throw Problem.keyNotString(object, in: dictionary).error()
            }
            return checked
        }

        /// True when no byte of the `n` from `at` has its high bit set, read eight at a
        /// time. For content inside the object area: the offset table and the 32-byte
        /// trailer follow it, so a word read from `at` never passes the end.
        @inline(__always)
        static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>, _ at: Int, _ n: Int) -> Bool {
            guard let base = bytes.baseAddress, n > 0 else { return true }
            let raw = UnsafeRawPointer(base + at)
            if n < 8 {
                // Most keys: one word, the bytes past the string masked off.
                let word = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
                return word & (1 &<< UInt64(8 &* n) &- 1) & 0x8080_8080_8080_8080 == 0
            }
            var bits = raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
            var i = 0
            while i &+ 8 < n {
                bits |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                i &+= 8
            }
            return bits & 0x8080_8080_8080_8080 == 0
        }

        /// Calls `body` with each scalar of the UTF-16 (big-endian) string at `at`;
        /// throws on an unpaired surrogate.
        @inline(__always)
        func forEachScalar(at: Int, units: Int, object: Int, _ body: (Unicode.Scalar) -> Void) throws(PropertyListError) {
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
                    throw Problem.unpairedSurrogate(unit, object).error()
                }
                body(scalar)
            }
        }

        // MARK: Keys

        /// Whether the checked string `string` is exactly `key` (UTF-8 bytes), compared
        /// in the file: an ASCII key byte for byte, a UTF-16 key scalar by scalar.
        /// `mutating` for the reason ``length(at:marker:object:)`` gives.
        @inline(__always)
        mutating func matches(_ string: Checked, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
            let n = string.count
            if string.marker >> 4 == 0x5 {
                // ASCII: equal bytes, or no match (a non-ASCII key is never ASCII in a file).
                guard n == key.count else { return false }
                guard let left = key.baseAddress, let base = bytes.baseAddress else { return n == 0 }
                return memcmp(left, base + string.content, n) == 0
            }
            // UTF-16: at least one unit per scalar, at most one per key byte.
            guard n <= key.count, n * 3 >= key.count else { return false }
            var utf8 = key.makeIterator()
            var equal = true
            do {
                try forEachScalar(at: string.content, units: n, object: 0) { scalar in
                    guard equal, let encoded = UTF8.encode(scalar) else { equal = false; return }
                    for byte in encoded where utf8.next() != byte { equal = false }
                }
            } catch {
                return false // not reached: a checked string has no unpaired surrogate
            }
            return equal && utf8.next() == nil
        }

        /// The value object under exactly `key` (its UTF-8 bytes) in the top
        /// dictionary: the last one of a key given twice; nil when there is none or
        /// the top object is no dictionary. For a file ``checkAll(lookingUp:)``
        /// accepted: only bounds are tested here, and no key is decoded.
        mutating func child(forKey key: UnsafeBufferPointer<UInt8>) throws(PropertyListError) -> Int? {
            let at = try offset(of: top)
            let marker = bytes[at]
            guard marker >> 4 == 0xD else { return nil }
            let (n, refs) = try length(at: at, marker: marker, object: top)
            try need(refs, 0, top)
            guard n <= (table - refs) / (refSize * 2) else { throw Problem.tooMany(top, UInt64(n)).error() }
            try need(refs, n * refSize * 2, top)
            var found: Int?
            for i in 0..<n {
                if let string = try located(try reference(at: refs + i * refSize, in: top)), matches(string, key) { found = i }
            }
            return try found.map { (i) throws(PropertyListError) in try reference(at: refs + (n + i) * refSize, in: top) }
        }

        /// The string `object` where it lies, its bounds tested but not its content;
        /// nil when it is not a string.
        private mutating func located(_ object: Int) throws(PropertyListError) -> Checked? {
            let at = try offset(of: object)
            let marker = bytes[at]
            guard marker >> 4 == 0x5 || marker >> 4 == 0x6 else { return nil }
            let (n, content) = try length(at: at, marker: marker, object: object)
            try need(content, 0, object)
            let width = marker >> 4 == 0x5 ? 1 : 2
            guard n <= (table - content) / width else { throw Problem.tooMany(object, UInt64(n)).error() }
            try need(content, n * width, object)
            return Checked(marker: marker, content: content, count: n)
        }
    }
}
