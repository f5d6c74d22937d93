import Foundation

/// Writes Apple's binary property-list format, `bplist00`, as Apple's writer
/// lays it out: equal scalars (strings, dictionary keys, numbers, dates, data)
/// stored once and referenced from every place they appear, and the smallest
/// widths for integers, references and offsets. Strings compare by exact code
/// units, so two spellings of one key stay two objects.
package enum BinaryPropertyListWriter {
    /// The bytes of `tree`.
    /// - Throws: ``PropertyListError`` when `tree` is nested deeper than
    ///   ``PropertyListLimits/maximumDepth`` (the readers would refuse the file).
    package static func write(_ tree: PropertyListTree) throws -> Data {
        var table = ObjectTable()
        _ = try table.add(tree, depth: 1)
        return table.encode()
    }

    private enum Object {
        case scalar([UInt8])
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    private struct ObjectTable {
        var objects: [Object] = []
        var scalars: [[UInt8]: Int] = [:]

        mutating func add(_ tree: PropertyListTree, depth: Int) throws -> Int {
            switch tree {
            case .array(let items):
                try check(depth)
                let index = reserve()
                var refs: [Int] = []
                refs.reserveCapacity(items.count)
                for item in items { refs.append(try add(item, depth: depth + 1)) }
                objects[index] = .array(refs)
                return index
            case .dictionary(let dictionary):
                try check(depth)
                let index = reserve()
                var keys: [Int] = [], values: [Int] = []
                keys.reserveCapacity(dictionary.count)
                values.reserveCapacity(dictionary.count)
                for (key, _) in dictionary { keys.append(scalar(Self.string(key))) }
                for (_, value) in dictionary { values.append(try add(value, depth: depth + 1)) }
                objects[index] = .dictionary(keys: keys, values: values)
                return index
            case .string(let s): return scalar(Self.string(s))
            case .integer(let i): return scalar(Self.integer(i))
            case .real(let r): return scalar([0x23] + Self.bigEndian(r.bitPattern, size: 8))
            case .date(let d): return scalar([0x33] + Self.bigEndian(d.bitPattern, size: 8))
            case .bool(let b): return scalar([b ? 0x09 : 0x08])
            case .data(let d): return scalar(Self.header(0x40, count: d.count) + Array(d))
            }
        }

        private func check(_ depth: Int) throws {
            if depth > PropertyListLimits.maximumDepth {
                throw PropertyListError("a value nested deeper than \(PropertyListLimits.maximumDepth) levels of arrays and dictionaries cannot be written")
            }
        }

        private mutating func reserve() -> Int {
            objects.append(.array([]))
            return objects.count - 1
        }

        private mutating func scalar(_ bytes: [UInt8]) -> Int {
            if let existing = scalars[bytes] { return existing }
            objects.append(.scalar(bytes))
            scalars[bytes] = objects.count - 1
            return objects.count - 1
        }

        func encode() -> Data {
            // Apple's reader insists that a reference can hold the object count and
            // an offset the offset table's own position, so the widths are chosen so.
            let refSize = ObjectTable.width(UInt64(objects.count))
            var out: [UInt8] = Array("bplist00".utf8)
            var offsets: [Int] = []
            offsets.reserveCapacity(objects.count)
            for object in objects {
                offsets.append(out.count)
                switch object {
                case .scalar(let bytes):
                    out += bytes
                case .array(let refs):
                    out += Self.header(0xA0, count: refs.count)
                    for ref in refs { out += Self.bigEndian(UInt64(ref), size: refSize) }
                case .dictionary(let keys, let values):
                    out += Self.header(0xD0, count: keys.count)
                    for ref in keys { out += Self.bigEndian(UInt64(ref), size: refSize) }
                    for ref in values { out += Self.bigEndian(UInt64(ref), size: refSize) }
                }
            }
            let tableOffset = out.count
            let offsetSize = Self.width(UInt64(tableOffset))
            for offset in offsets { out += Self.bigEndian(UInt64(offset), size: offsetSize) }
            out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
            out += Self.bigEndian(UInt64(objects.count), size: 8)
            out += Self.bigEndian(0, size: 8) // the root is always object 0
            out += Self.bigEndian(UInt64(tableOffset), size: 8)
            return Data(out)
        }

        /// Smallest of 1, 2, 4 or 8 bytes that holds `value`.
        static func width(_ value: UInt64) -> Int {
            value < 1 << 8 ? 1 : value < 1 << 16 ? 2 : value < 1 << 32 ? 4 : 8
        }

        static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
            (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
        }

        static func header(_ marker: UInt8, count: Int) -> [UInt8] {
            if count < 15 { return [marker | UInt8(count)] }
            return [marker | 0x0F] + integer(.signed(Int64(count)))
        }

        static func integer(_ value: PropertyListInteger) -> [UInt8] {
            switch value {
            case .signed(let v) where v >= 0:
                let size = width(UInt64(v))
                let marker: UInt8 = size == 1 ? 0x10 : size == 2 ? 0x11 : size == 4 ? 0x12 : 0x13
                return [marker] + bigEndian(UInt64(v), size: size)
            case .signed(let v):
                return [0x13] + bigEndian(UInt64(bitPattern: v), size: 8)
            case .unsigned(let v):
                // Apple's form for values above Int64.max: 16 bytes, the high 8 zero.
                return [0x14] + [UInt8](repeating: 0, count: 8) + bigEndian(v, size: 8)
            }
        }

        static func string(_ s: String) -> [UInt8] {
            if s.utf8.allSatisfy({ $0 < 0x80 }) { return header(0x50, count: s.utf8.count) + Array(s.utf8) }
            let units = Array(s.utf16)
            var out = header(0x60, count: units.count)
            out.reserveCapacity(out.count + units.count * 2)
            for unit in units { out += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
            return out
        }
    }
}
