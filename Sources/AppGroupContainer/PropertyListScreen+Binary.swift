import Foundation

/// The binary half of ``PropertyListScreen``: the trailer, the offset table, each
/// object's marker, and the nesting reachable from the top object.
///
/// Nesting is measured without recursion: a depth-first walk on an explicit stack
/// that never grows past the limit, remembering each finished container's height,
/// so that an object shared by many parents (a list may reference one object from
/// everywhere) is walked once, and a reference back to an object still on the path
/// (a cycle, which would make a recursive reader loop forever) is refused.
enum BinaryPropertyListScan {
    static func problem(in data: Data, maximumDepth: Int) -> String? {
        data.withUnsafeBytes { raw -> String? in
            let bytes = raw.bindMemory(to: UInt8.self)
            let count = bytes.count
            let trailerSize = 32
            let damaged = "a truncated or damaged binary property list of \(count) bytes (its trailer, offset table or an object is out of bounds)"
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
            let referenceSize = Int(bytes[trailer + 7])
            guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
                  let objects = integer(at: trailer + 8, size: 8),
                  let top = integer(at: trailer + 16, size: 8),
                  let table = integer(at: trailer + 24, size: 8),
                  table >= 8, table <= trailer,
                  objects <= (trailer - table) / offsetSize, top < objects else { return damaged }
            func offset(of index: Int) -> Int? {
                guard let offset = integer(at: table + index * offsetSize, size: offsetSize), offset >= 8, offset < table else { return nil }
                return offset
            }
            for index in 0..<objects {
                guard let offset = offset(of: index) else { return damaged }
                if bytes[offset] >> 4 == 0xC {
                    return "a binary property list holding a set (object \(index)), which no defaults, keychain or entitlements file contains"
                }
            }
            // An array's or dictionary's references: (first byte, how many), nil for
            // any other object; throws (as `damaged`) when out of bounds.
            struct Damaged: Error {}
            func references(of index: Int) throws -> (start: Int, count: Int)? {
                guard let offset = offset(of: index) else { throw Damaged() }
                let marker = bytes[offset]
                let kind = marker >> 4
                guard kind == 0xA || kind == 0xD else { return nil }
                var length = Int(marker & 0x0F)
                var start = offset + 1
                if length == 0x0F {
                    guard start < table, bytes[start] >> 4 == 0x1, bytes[start] & 0x0F <= 3 else { throw Damaged() }
                    let size = 1 << Int(bytes[start] & 0x0F)
                    guard let value = integer(at: start + 1, size: size) else { throw Damaged() }
                    length = value
                    start += 1 + size
                }
                let perEntry = kind == 0xD ? 2 : 1
                guard start <= table, length <= (table - start) / (referenceSize * perEntry) else { throw Damaged() }
                return (start, length * perEntry)
            }
            // 0: not reached yet, 1: on the current path, 2: finished (height known).
            var state = [UInt8](repeating: 0, count: objects)
            var height = [Int32](repeating: 0, count: objects)
            struct Frame { let index: Int; let start: Int; let count: Int; var next: Int; var tallest: Int32 }
            var path: [Frame] = []
            let tooDeep = "a binary property list nested deeper than \(maximumDepth) arrays and dictionaries"
            do {
                guard let root = try references(of: top) else { return nil }
                path.append(Frame(index: top, start: root.start, count: root.count, next: 0, tallest: 0))
                state[top] = 1
                while var frame = path.last {
                    if frame.next == frame.count {
                        path.removeLast()
                        state[frame.index] = 2
                        height[frame.index] = frame.tallest + 1
                        if !path.isEmpty { path[path.count - 1].tallest = max(path[path.count - 1].tallest, frame.tallest + 1) }
                        continue
                    }
                    guard let child = integer(at: frame.start + frame.next * referenceSize, size: referenceSize), child < objects else {
                        return damaged
                    }
                    frame.next += 1
                    path[path.count - 1] = frame
                    switch state[child] {
                    case 1:
                        return "a binary property list whose object \(child) contains itself (a reference cycle)"
                    case 2:
                        if path.count + Int(height[child]) > maximumDepth { return tooDeep }
                        path[path.count - 1].tallest = max(frame.tallest, height[child])
                    default:
                        guard let refs = try references(of: child) else { continue }
                        if path.count + 1 > maximumDepth { return tooDeep }
                        state[child] = 1
                        path.append(Frame(index: child, start: refs.start, count: refs.count, next: 0, tallest: 0))
                    }
                }
            } catch {
                return damaged
            }
            return nil
        }
    }
}
