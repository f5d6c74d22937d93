import Foundation

extension BinaryPropertyListReader.Parser {
    /// A container open in ``checkAll(lookingUp:)``: plain values, so the walk's
    /// stack costs no reference counting. Its references were bounds-checked when
    /// it was inspected, so the offsets the walk computes from them cannot overflow.
    private struct Open {
        let object: Int
        let refs: Int
        let count: Int
        let isDictionary: Bool
        var next = 0
    }

    /// Every test of a full read, in the same order over the same objects, building
    /// no value: the top object's kind (an empty container, or the scalar itself),
    /// and the value object of exactly `key` in the top dictionary, found on the
    /// same pass over its keys (the last of a key given twice).
    ///
    /// Apart from the full read's walk because building is what costs there: a
    /// value, a key string and a frame holding one per container (a read after
    /// another process's save checks a whole suite to decode one key).
    mutating func checkAll(lookingUp key: UnsafeBufferPointer<UInt8>?) throws(PropertyListError) -> (root: PropertyListTree, found: Int?) {
        let root = try inspect(top)
        guard root.isContainer else { return (scalar(root), nil) }
        try open(top, depth: 0)
        // The innermost container is kept here; those around it wait on `outer`.
        var frame = Open(object: top, refs: root.content, count: root.count, isDictionary: root.isDictionary)
        var outer: [Open] = []
        var found: Int?
        while true {
            guard frame.next < frame.count else {
                onPath[frame.object] = false
                guard let enclosing = outer.popLast() else { break }
                frame = enclosing
                continue
            }
            let i = frame.next
            frame.next = i &+ 1
            let child: Int
            if frame.isDictionary {
                let string = try self.key(try reference(at: frame.refs &+ i &* refSize, in: frame.object), in: frame.object)
                child = try reference(at: frame.refs &+ (frame.count &+ i) &* refSize, in: frame.object)
                // A key of another length is no match (ASCII: the same count of bytes;
                // UTF-16: no more units than the key has bytes): no call for most keys.
                if outer.isEmpty, let key, string.marker >> 4 == 0x5 ? string.count == key.count : string.count <= key.count,
                   matches(string, key) { found = child }
            } else {
                child = try reference(at: frame.refs &+ i &* refSize, in: frame.object)
            }
            try refuseCycle(child, in: frame.object)
            let value = try inspect(child)
            if value.isContainer {
                try open(child, depth: outer.count &+ 1)
                outer.append(frame)
                frame = Open(object: child, refs: value.content, count: value.count, isDictionary: value.isDictionary)
            }
        }
        return (root.isDictionary ? .dictionary(PropertyListDictionary()) : .array([]), found)
    }
}
