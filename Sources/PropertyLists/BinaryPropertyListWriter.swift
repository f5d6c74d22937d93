import Foundation

/// Writes Apple's binary property-list format, `bplist00`, as Apple's writer
/// lays it out: equal scalars (strings, dictionary keys, numbers, dates, data)
/// stored once and referenced from every place they appear, and the smallest
/// widths for integers, references and offsets. Strings compare by exact code
/// units, so two spellings of one key stay two objects; numbers by type and bits,
/// so 1 and 1.0, or 0.0 and -0.0, stay two objects too.
///
/// One pass numbers the objects (deduplicating scalars through a hash of typed
/// values), a second emits them into one buffer: no intermediate byte arrays.
package enum BinaryPropertyListWriter {
    /// The bytes of `tree`.
    /// - Throws: ``PropertyListError`` when `tree` is nested deeper than
    ///   ``PropertyListLimits/maximumDepth`` (the readers would refuse the file).
    package static func write(_ tree: PropertyListTree) throws(PropertyListError) -> Data {
        var table = ObjectTable()
        _ = try table.add(tree, depth: 1)
        return table.encode()
    }

    /// A scalar as deduplication sees it: equal keys are the same object in the file.
    enum ScalarKey: Hashable, Sendable {
        case string(ExactKey)
        case integer(PropertyListInteger)
        case real(UInt64)
        case date(UInt64)
        case bool(Bool)
        case data(Data)
    }

    enum Object {
        case scalar(PropertyListTree)
        case array([Int])
        /// Key references, then value references.
        case dictionary([Int])
    }

    struct ObjectTable {
        var objects: [Object] = []
        var scalars: [ScalarKey: Int] = [:]
        /// A guess of the output's size, so the buffer grows rarely.
        var estimate = 64

        mutating func add(_ tree: PropertyListTree, depth: Int) throws(PropertyListError) -> Int {
            switch tree {
            case .array(let items):
                try Self.check(depth)
                let index = reserve()
                var refs: [Int] = []
                refs.reserveCapacity(items.count)
                for item in items { refs.append(try add(item, depth: depth + 1)) }
                estimate += 9 + 8 * refs.count
                objects[index] = .array(refs)
                return index
            case .dictionary(let dictionary):
                try Self.check(depth)
                if depth == 1 { scalars.reserveCapacity(2 * dictionary.count) }
                let index = reserve()
                var refs: [Int] = []
                refs.reserveCapacity(2 * dictionary.count)
                for (key, _) in dictionary { refs.append(scalar(.string(key), .string(ExactKey(key)))) }
                for (_, value) in dictionary { refs.append(try add(value, depth: depth + 1)) }
                estimate += 9 + 8 * refs.count
                objects[index] = .dictionary(refs)
                return index
            case .string(let s): return scalar(tree, .string(ExactKey(s)))
            case .integer(let i): return scalar(tree, .integer(i))
            case .real(let r): return scalar(tree, .real(r.bitPattern))
            case .date(let d): return scalar(tree, .date(d.bitPattern))
            case .bool(let b): return scalar(tree, .bool(b))
            case .data(let d): return scalar(tree, .data(d))
            }
        }

        static func check(_ depth: Int) throws(PropertyListError) {
            if depth > PropertyListLimits.maximumDepth {
                throw PropertyListError("a value nested deeper than \(PropertyListLimits.maximumDepth) levels of arrays and dictionaries cannot be written")
            }
        }

        private mutating func reserve() -> Int {
            objects.append(.array([]))
            return objects.count - 1
        }

        private mutating func scalar(_ value: PropertyListTree, _ key: ScalarKey) -> Int {
            let next = objects.count
            // One hash for the lookup and the insertion: the entry is made with
            // `next` when absent, and an existing entry keeps its index.
            let index = Self.value(&scalars[key, default: next])
            guard index == next else { return index }
            objects.append(.scalar(value))
            switch value {
            case .string(let s): estimate += 10 + 2 * s.utf8.count
            case .data(let d): estimate += 10 + d.count
            default: estimate += 17
            }
            return next
        }

        func encode() -> Data {
            // Apple's reader insists that a reference can hold the object count and
            // an offset the offset table's own position, so the widths are chosen so.
            let refSize = Self.width(UInt64(objects.count))
            var out = Output(capacity: estimate + 8 * objects.count + 40)
            out.bytes.append(contentsOf: "bplist00".utf8)
            var offsets: [Int] = []
            offsets.reserveCapacity(objects.count)
            for object in objects {
                offsets.append(out.bytes.count)
                switch object {
                case .scalar(let value): out.scalar(value)
                case .array(let refs):
                    out.header(0xA0, count: refs.count)
                    for ref in refs { out.bigEndian(UInt64(ref), size: refSize) }
                case .dictionary(let refs):
                    out.header(0xD0, count: refs.count / 2)
                    for ref in refs { out.bigEndian(UInt64(ref), size: refSize) }
                }
            }
            let tableOffset = out.bytes.count
            let offsetSize = Self.width(UInt64(tableOffset))
            for offset in offsets { out.bigEndian(UInt64(offset), size: offsetSize) }
            out.bytes.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)])
            out.bigEndian(UInt64(objects.count), size: 8)
            out.bigEndian(0, size: 8) // the root is always object 0
            out.bigEndian(UInt64(tableOffset), size: 8)
            return Data(out.bytes)
        }

        private static func value(_ slot: inout Int) -> Int { slot }

        /// Smallest of 1, 2, 4 or 8 bytes that holds `value`.
        static func width(_ value: UInt64) -> Int {
            value < 1 << 8 ? 1 : value < 1 << 16 ? 2 : value < 1 << 32 ? 4 : 8
        }
    }

    /// The file being written.
    struct Output {
        var bytes: [UInt8] = []

        init(capacity: Int) { bytes.reserveCapacity(capacity) }

        mutating func bigEndian(_ value: UInt64, size: Int) {
            var shift = 8 * (size - 1)
            while shift >= 0 {
                bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
                shift -= 8
            }
        }

        /// A marker with its element count, the count following as an integer object when over 14.
        mutating func header(_ marker: UInt8, count: Int) {
            if count < 15 {
                bytes.append(marker | UInt8(count))
            } else {
                bytes.append(marker | 0x0F)
                integer(.signed(Int64(count)))
            }
        }

        mutating func integer(_ value: PropertyListInteger) {
            switch value {
            case .signed(let v) where v >= 0:
                let size = ObjectTable.width(UInt64(v))
                bytes.append(size == 1 ? 0x10 : size == 2 ? 0x11 : size == 4 ? 0x12 : 0x13)
                bigEndian(UInt64(v), size: size)
            case .signed(let v):
                bytes.append(0x13)
                bigEndian(UInt64(bitPattern: v), size: 8)
            case .unsigned(let v):
                // Apple's form for values above Int64.max: 16 bytes, the high 8 zero.
                bytes.append(0x14)
                bigEndian(0, size: 8)
                bigEndian(v, size: 8)
            }
        }

        mutating func scalar(_ value: PropertyListTree) {
            switch value {
            case .string(let s): string(s)
            case .integer(let i): integer(i)
            case .real(let r):
                bytes.append(0x23)
                bigEndian(r.bitPattern, size: 8)
            case .date(let d):
                bytes.append(0x33)
                bigEndian(d.bitPattern, size: 8)
            case .bool(let b): bytes.append(b ? 0x09 : 0x08)
            case .data(let d):
                header(0x40, count: d.count)
                bytes.append(contentsOf: d)
            case .array, .dictionary: break // containers are objects of their own
            }
        }

        /// ASCII strings as bytes (marker 0x5_), any other as UTF-16 big-endian (0x6_).
        mutating func string(_ s: String) {
            let utf8 = s.utf8
            let ascii = utf8.withContiguousStorageIfAvailable { $0.allSatisfy { $0 < 0x80 } } ?? utf8.allSatisfy { $0 < 0x80 }
            if ascii {
                header(0x50, count: utf8.count)
                bytes.append(contentsOf: utf8)
                return
            }
            header(0x60, count: s.utf16.count)
            for unit in s.utf16 {
                bytes.append(UInt8(truncatingIfNeeded: unit >> 8))
                bytes.append(UInt8(truncatingIfNeeded: unit))
            }
        }
    }
}
