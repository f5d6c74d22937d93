import Foundation

/// The binary encoding of a top-level dictionary, kept between saves so that a
/// change costs in proportion to what changed, not to the whole dictionary.
///
/// ``BinaryPropertyListWriter`` spends most of a save of a large suite hashing
/// every scalar to find the equal ones. This keeps, for each distinct scalar, its
/// encoded bytes and an ID, and the dictionary as a tree of IDs; a change interns
/// only the new values. ``encode()`` then numbers the objects in the writer's order
/// (a pass over the IDs, no hashing) and copies the kept bytes: the result is
/// byte for byte what the writer makes of the same dictionary, so files keep
/// Apple's layout whichever path wrote them (a differential test holds the two
/// together: PropertyListsTests' `BinaryPropertyListEncodingTests`).
///
/// Values that are no longer used keep their bytes until ``needsRebuild`` says
/// the waste is worth a fresh ``make(_:)``.
package struct BinaryPropertyListEncoding: Sendable {
    /// A value as the encoding holds it: a scalar's ID, or a container of them.
    enum Node: Sendable {
        case scalar(Int32)
        case array([Node])
        case dictionary(keys: [Int32], values: [Node])
    }

    typealias ScalarKey = BinaryPropertyListWriter.ScalarKey

    /// The top dictionary: its keys' IDs and its values, in entry order.
    private var keys: [Int32] = []
    private var values: [Node] = []
    /// By ID: where the scalar's bytes sit in `arena`, how many, and how many
    /// places refer to it (0: unused, kept until a rebuild).
    private var start: [Int32] = []
    private var length: [Int32] = []
    private var uses: [Int32] = []
    private var ids: [ScalarKey: Int32] = [:]
    private var arena: [UInt8] = []
    private var unusedIDs = 0
    private var unusedBytes = 0

    /// Entries of the top dictionary.
    package var count: Int { keys.count }

    /// True once unused values hold more than the live ones: rebuild with ``make(_:)``.
    package var needsRebuild: Bool {
        unusedIDs > max(1_024, ids.count / 2) || unusedBytes > max(65_536, arena.count / 2)
    }

    /// The bytes of `dictionary` (what ``BinaryPropertyListWriter/write(_:)`` makes of
    /// it) and their encoding, for the changes that follow.
    /// - Throws: ``PropertyListError`` as the writer throws it.
    package static func make(_ dictionary: PropertyListDictionary) throws(PropertyListError) -> (data: Data, encoding: BinaryPropertyListEncoding) {
        var table = BinaryPropertyListWriter.ObjectTable()
        _ = try table.add(.dictionary(dictionary), depth: 1)
        let data = table.encode()
        return (data, BinaryPropertyListEncoding(table: table, data: data))
    }

    /// The encoding the writer's `table` made into `data`: the IDs are its object
    /// numbers, the arena its bytes (a container's number is simply never used).
    private init(table: BinaryPropertyListWriter.ObjectTable, data: Data) {
        arena = [UInt8](data)
        let objects = table.objects.count
        let trailer = arena.count - 32
        let offsetSize = Int(arena[trailer + 6])
        let tableOffset = Self.load(arena, at: trailer + 24, size: 8)
        start.reserveCapacity(objects)
        length.reserveCapacity(objects)
        for object in 0..<objects {
            let at = Self.load(arena, at: tableOffset + object * offsetSize, size: offsetSize)
            let next = object + 1 < objects ? Self.load(arena, at: tableOffset + (object + 1) * offsetSize, size: offsetSize) : tableOffset
            start.append(Int32(at))
            length.append(Int32(next - at))
        }
        uses = [Int32](repeating: 0, count: objects)
        ids = table.scalars.mapValues { Int32($0) }
        guard case .dictionary(let refs)? = table.objects.first else { return }
        let n = refs.count / 2
        keys = refs[..<n].map { Int32($0) }
        for key in keys { uses[Int(key)] += 1 }
        values = refs[n...].map { node(object: $0, in: table.objects) }
    }

    private mutating func node(object: Int, in objects: [BinaryPropertyListWriter.Object]) -> Node {
        switch objects[object] {
        case .scalar:
            uses[object] += 1
            return .scalar(Int32(object))
        case .array(let refs):
            return .array(refs.map { node(object: $0, in: objects) })
        case .dictionary(let refs):
            let n = refs.count / 2
            let keys = refs[..<n].map { key -> Int32 in uses[key] += 1; return Int32(key) }
            return .dictionary(keys: keys, values: refs[n...].map { node(object: $0, in: objects) })
        }
    }

    private static func load(_ bytes: [UInt8], at: Int, size: Int) -> Int {
        var value = 0
        for i in 0..<size { value = value << 8 | Int(bytes[at + i]) }
        return value
    }

    // MARK: Changes (in the dictionary's own order of entries)

    /// Entry `index` now holds `value` (its key unchanged).
    /// - Throws: ``PropertyListError`` when `value` is nested too deep to be written.
    package mutating func replaceValue(at index: Int, with value: PropertyListTree) throws(PropertyListError) {
        let new = try node(value, depth: 2)
        release(values[index])
        values[index] = new
    }

    /// A new last entry.
    /// - Throws: as ``replaceValue(at:with:)``.
    package mutating func append(key: String, value: PropertyListTree) throws(PropertyListError) {
        let new = try node(value, depth: 2)
        keys.append(intern(.string(key), .string(ExactKey(key))))
        values.append(new)
    }

    /// Entry `index` removed; the later ones move up.
    package mutating func remove(at index: Int) {
        release(.scalar(keys[index]))
        release(values[index])
        keys.remove(at: index)
        values.remove(at: index)
    }

    private mutating func node(_ tree: PropertyListTree, depth: Int) throws(PropertyListError) -> Node {
        switch tree {
        case .array(let items):
            try BinaryPropertyListWriter.ObjectTable.check(depth)
            var nodes: [Node] = []
            nodes.reserveCapacity(items.count)
            for item in items { nodes.append(try node(item, depth: depth + 1)) }
            return .array(nodes)
        case .dictionary(let dictionary):
            try BinaryPropertyListWriter.ObjectTable.check(depth)
            var keys: [Int32] = [], nodes: [Node] = []
            keys.reserveCapacity(dictionary.count)
            nodes.reserveCapacity(dictionary.count)
            for (key, _) in dictionary { keys.append(intern(.string(key), .string(ExactKey(key)))) }
            for (_, value) in dictionary { nodes.append(try node(value, depth: depth + 1)) }
            return .dictionary(keys: keys, values: nodes)
        case .string(let s): return .scalar(intern(tree, .string(ExactKey(s))))
        case .integer(let i): return .scalar(intern(tree, .integer(i)))
        case .real(let r): return .scalar(intern(tree, .real(r.bitPattern)))
        case .date(let d): return .scalar(intern(tree, .date(d.bitPattern)))
        case .bool(let b): return .scalar(intern(tree, .bool(b)))
        case .data(let d): return .scalar(intern(tree, .data(d)))
        }
    }

    /// The ID of `value`, one use more; a value not held yet is encoded once.
    private mutating func intern(_ value: PropertyListTree, _ key: ScalarKey) -> Int32 {
        if let id = ids[key] {
            if uses[Int(id)] == 0 {
                unusedIDs -= 1
                unusedBytes -= Int(length[Int(id)])
            }
            uses[Int(id)] += 1
            return id
        }
        var out = BinaryPropertyListWriter.Output(capacity: 16)
        out.scalar(value)
        let id = Int32(start.count)
        start.append(Int32(arena.count))
        length.append(Int32(out.bytes.count))
        uses.append(1)
        arena.append(contentsOf: out.bytes)
        ids[key] = id
        return id
    }

    private mutating func release(_ node: Node) {
        switch node {
        case .scalar(let id):
            uses[Int(id)] -= 1
            if uses[Int(id)] == 0 {
                unusedIDs += 1
                unusedBytes += Int(length[Int(id)])
            }
        case .array(let items):
            for item in items { release(item) }
        case .dictionary(let keys, let values):
            for key in keys { release(.scalar(key)) }
            for value in values { release(value) }
        }
    }

    // MARK: Encoding

    /// The objects in the writer's order: each scalar at its first use, each
    /// container before what it holds (a dictionary's keys before its values).
    private struct Numbering {
        /// By ID: the object's number, -1 before its first use.
        var number: [Int32]
        /// By number: a scalar's ID, or `-1 - c` for the container `containers[c]`.
        var order: [Int32] = []
        var containers: [(isDictionary: Bool, refs: [Int32])] = []

        init(ids: Int) {
            number = [Int32](repeating: -1, count: ids)
            order.reserveCapacity(ids + 1)
        }

        mutating func scalar(_ id: Int32) -> Int32 {
            let known = number[Int(id)]
            if known >= 0 { return known }
            let next = Int32(order.count)
            number[Int(id)] = next
            order.append(id)
            return next
        }

        mutating func container(isDictionary: Bool) -> (number: Int32, index: Int) {
            let index = containers.count
            containers.append((isDictionary, []))
            order.append(Int32(-1 - index))
            return (Int32(order.count - 1), index)
        }

        mutating func visit(_ node: Node) -> Int32 {
            switch node {
            case .scalar(let id):
                return scalar(id)
            case .array(let items):
                let (number, index) = container(isDictionary: false)
                var refs: [Int32] = []
                refs.reserveCapacity(items.count)
                for item in items { refs.append(visit(item)) }
                containers[index].refs = refs
                return number
            case .dictionary(let keys, let values):
                let (number, index) = container(isDictionary: true)
                var refs: [Int32] = []
                refs.reserveCapacity(2 * keys.count)
                for key in keys { refs.append(scalar(key)) }
                for value in values { refs.append(visit(value)) }
                containers[index].refs = refs
                return number
            }
        }
    }

    /// The file's bytes, exactly as ``BinaryPropertyListWriter/write(_:)`` writes the
    /// dictionary the entries now make.
    package func encode() -> Data {
        var numbering = Numbering(ids: start.count)
        let (_, rootIndex) = numbering.container(isDictionary: true)
        var rootRefs: [Int32] = []
        rootRefs.reserveCapacity(2 * keys.count)
        for key in keys { rootRefs.append(numbering.scalar(key)) }
        for value in values {
            if case .scalar(let id) = value {
                rootRefs.append(numbering.scalar(id))
            } else {
                rootRefs.append(numbering.visit(value))
            }
        }
        numbering.containers[rootIndex].refs = rootRefs

        let order = numbering.order, containers = numbering.containers
        let objects = order.count
        let refSize = BinaryPropertyListWriter.ObjectTable.width(UInt64(objects))
        var objectBytes = 8
        for container in containers {
            let count = container.isDictionary ? container.refs.count / 2 : container.refs.count
            objectBytes += Self.headerSize(count) + container.refs.count * refSize
        }
        length.withUnsafeBufferPointer { length in
            for entry in order where entry >= 0 { objectBytes += Int(length[Int(entry)]) }
        }
        let tableOffset = objectBytes
        let offsetSize = BinaryPropertyListWriter.ObjectTable.width(UInt64(tableOffset))
        let total = tableOffset + objects * offsetSize + 32
        // Not zeroed first: every byte is written below.
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: total)
        order.withUnsafeBufferPointer { order in
        start.withUnsafeBufferPointer { start in
        length.withUnsafeBufferPointer { length in
        arena.withUnsafeBufferPointer { arena in
            // Nil only when no scalar was ever kept, so that no object below reads it.
            let source = arena.baseAddress
            for (i, byte) in "bplist00".utf8.enumerated() { out[i] = byte }
            var at = 8
            var slot = out + tableOffset
            for number in 0..<objects {
                Self.put(UInt64(at), size: offsetSize, at: slot)
                slot += offsetSize
                let entry = Int(order[number])
                if entry >= 0 {
                    let n = Int(length[entry])
                    if let source { (out + at).update(from: source + Int(start[entry]), count: n) }
                    at &+= n
                } else {
                    let container = containers[-1 - entry]
                    let count = container.isDictionary ? container.refs.count / 2 : container.refs.count
                    at = Self.header(container.isDictionary ? 0xD0 : 0xA0, count: count, at: out, at)
                    container.refs.withUnsafeBufferPointer { refs in
                        var p = out + at
                        for ref in refs {
                            Self.put(UInt64(ref), size: refSize, at: p)
                            p += refSize
                        }
                    }
                    at &+= container.refs.count * refSize
                }
            }
        }
        }
        }
        }
        let trailer = out + tableOffset + objects * offsetSize
        for i in 0..<32 { trailer[i] = 0 }
        trailer[6] = UInt8(offsetSize)
        trailer[7] = UInt8(refSize)
        Self.put(UInt64(objects), size: 8, at: trailer + 8)
        // The root is always object 0 (bytes 16 to 23 stay zero).
        Self.put(UInt64(tableOffset), size: 8, at: trailer + 24)
        return Data(bytesNoCopy: out, count: total, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }

    /// The bytes of a container's marker and count (``BinaryPropertyListWriter``'s `header`).
    private static func headerSize(_ count: Int) -> Int {
        count < 15 ? 1 : 2 + BinaryPropertyListWriter.ObjectTable.width(UInt64(count))
    }

    /// Writes a container's marker and count at `at`; returns the offset after them.
    private static func header(_ marker: UInt8, count: Int, at out: UnsafeMutablePointer<UInt8>, _ at: Int) -> Int {
        if count < 15 {
            out[at] = marker | UInt8(count)
            return at + 1
        }
        out[at] = marker | 0x0F
        let size = BinaryPropertyListWriter.ObjectTable.width(UInt64(count))
        out[at + 1] = size == 1 ? 0x10 : size == 2 ? 0x11 : size == 4 ? 0x12 : 0x13
        put(UInt64(count), size: size, at: out + at + 2)
        return at + 2 + size
    }

    /// `value` big-endian in `size` bytes (1, 2, 4 or 8) at `out`.
    @inline(__always)
    private static func put(_ value: UInt64, size: Int, at out: UnsafeMutablePointer<UInt8>) {
        let raw = UnsafeMutableRawPointer(out)
        switch size {
        case 1: out[0] = UInt8(truncatingIfNeeded: value)
        case 2: raw.storeBytes(of: UInt16(truncatingIfNeeded: value).bigEndian, as: UInt16.self)
        case 4: raw.storeBytes(of: UInt32(truncatingIfNeeded: value).bigEndian, as: UInt32.self)
        default: raw.storeBytes(of: value.bigEndian, as: UInt64.self)
        }
    }
}
