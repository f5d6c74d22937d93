import Foundation

/// A big-endian unsigned integer of a width fixed at compile time: the plain-entries
/// walk is specialised for each pair of offset and reference widths, so that
/// reading one is a load or two, not a loop over a width held in a variable.
protocol BigEndianWidth {
    static var size: Int { get }
    static func load(_ bytes: UnsafePointer<UInt8>) -> Int
}

private enum Width1: BigEndianWidth {
    static var size: Int { 1 }
    @inline(__always) static func load(_ p: UnsafePointer<UInt8>) -> Int { Int(p[0]) }
}

private enum Width2: BigEndianWidth {
    static var size: Int { 2 }
    @inline(__always) static func load(_ p: UnsafePointer<UInt8>) -> Int { Int(p[0]) << 8 | Int(p[1]) }
}

private enum Width4: BigEndianWidth {
    static var size: Int { 4 }
    @inline(__always) static func load(_ p: UnsafePointer<UInt8>) -> Int {
        Int(UInt32(bigEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt32.self)))
    }
}

extension BinaryPropertyListReader.Parser {
    /// What ``checkPlainEntries(lookingUp:)`` found.
    enum PlainOutcome: Equatable {
        /// Not a plain dictionary, or something in it the general check must judge
        /// (perhaps to refuse it): nothing was decided.
        case notPlain
        /// A plain dictionary that passes every test of the full read; the value
        /// object of the key looked up (the last of a key given twice), if any.
        case plain(found: Int?)
    }

    /// The check of ``checkAll(lookingUp:)`` for the commonest suite: a top
    /// dictionary whose keys are ASCII strings and whose values are scalars
    /// (booleans, integers of up to 8 bytes, reals, dates, data, ASCII strings), with
    /// offsets of 1, 2 or 4 bytes and references of 1 or 2. It answers only
    /// `.plain` for a file the general check accepts, with the same value found;
    /// on anything else (a nested container, a UTF-16 string, a 16-byte integer, a
    /// bound or test that fails) `.notPlain`, and the caller runs the general check,
    /// which then gives the verdict and the message (a differential test holds the
    /// two together: PropertyListsTests' `plainEntriesAgree`).
    ///
    /// Why: the general walk tests each object through one `inspect` of every kind,
    /// with a width read by a loop; for such a suite these few tests in one loop
    /// cost much less, and a read after
    /// another process's save checks the whole suite to answer one key.
    ///
    /// Changes nothing in the parser (no value counted, no container marked open);
    /// `mutating` only so that the call does not copy the parser (see
    /// ``length(at:marker:object:)``).
    mutating func checkPlainEntries(lookingUp key: UnsafeBufferPointer<UInt8>?) -> PlainOutcome {
        switch (offsetSize, refSize) {
        case (1, 1): return plainEntries(lookingUp: key, offsets: Width1.self, refs: Width1.self)
        case (2, 1): return plainEntries(lookingUp: key, offsets: Width2.self, refs: Width1.self)
        case (1, 2): return plainEntries(lookingUp: key, offsets: Width1.self, refs: Width2.self)
        case (2, 2): return plainEntries(lookingUp: key, offsets: Width2.self, refs: Width2.self)
        case (4, 1): return plainEntries(lookingUp: key, offsets: Width4.self, refs: Width1.self)
        case (4, 2): return plainEntries(lookingUp: key, offsets: Width4.self, refs: Width2.self)
        default: return .notPlain
        }
    }

    private mutating func plainEntries<O: BigEndianWidth, R: BigEndianWidth>(lookingUp key: UnsafeBufferPointer<UInt8>?,
                                                                   offsets: O.Type, refs: R.Type) -> PlainOutcome {
        guard let base = bytes.baseAddress else { return .notPlain }
        let table = self.table, objects = self.objectCount
        // The offset of `object` (below `objects`: in the table), within the object area.
        @inline(__always) func offset(_ object: Int) -> Int? {
            let at = O.load(base + (table &+ object &* O.size))
            return at >= 8 && at < table ? at : nil
        }
        // The count and content of a string or data object at `at` (its marker
        // there), the content inside the object area.
        @inline(__always) func span(_ at: Int, _ marker: UInt8) -> (count: Int, content: Int)? {
            var n = Int(marker & 0x0F), content = at &+ 1
            if n == 0x0F {
                // The length is an integer object of 1, 2 or 4 bytes after the marker.
                guard at &+ 1 < table else { return nil }
                let intMarker = base[at &+ 1]
                let size = 1 &<< Int(intMarker & 0x0F)
                guard intMarker >> 4 == 0x1, size <= 4, size <= table &- (at &+ 2) else { return nil }
                switch size {
                case 1: n = Width1.load(base + (at &+ 2))
                case 2: n = Width2.load(base + (at &+ 2))
                default: n = Width4.load(base + (at &+ 2))
                }
                content = at &+ 2 &+ size
            }
            return n <= table &- content ? (n, content) : nil
        }

        guard let top = offset(self.top) else { return .notPlain }
        let marker = base[top]
        guard marker >> 4 == 0xD else { return .notPlain }
        guard let (n, refStart) = span(top, marker) else { return .notPlain }
        // Its references inside the object area; every value within the budget.
        guard n <= (table &- refStart) / (2 &* R.size), 1 &+ 2 &* n <= budget else { return .notPlain }
        var found: Int?
        var i = 0
        while i < n {
            let keyObject = R.load(base + (refStart &+ i &* R.size))
            let valueObject = R.load(base + (refStart &+ (n &+ i) &* R.size))
            i &+= 1
            // A value that is the top dictionary itself is a cycle: the general check says so.
            guard keyObject < objects, valueObject < objects, valueObject != self.top,
                  let keyAt = offset(keyObject) else { return .notPlain }
            let keyMarker = base[keyAt]
            guard keyMarker >> 4 == 0x5, let (keyCount, keyContent) = span(keyAt, keyMarker),
                  Self.isASCII(bytes, keyContent, keyCount) else { return .notPlain }
            if let key, keyCount == key.count,
               keyCount == 0 || key.baseAddress.map({ memcmp($0, base + keyContent, keyCount) == 0 }) == true {
                found = valueObject
            }
            guard let valueAt = offset(valueObject) else { return .notPlain }
            let valueMarker = base[valueAt]
            let low = Int(valueMarker & 0x0F)
            switch valueMarker >> 4 {
            case 0x0:
                guard valueMarker == 0x08 || valueMarker == 0x09 else { return .notPlain }
            case 0x1:
                // 1, 2, 4 or 8 bytes (16, with its test of the high half, is the general check's).
                guard low <= 3, 1 &<< low <= table &- (valueAt &+ 1) else { return .notPlain }
            case 0x2:
                guard low == 2 || low == 3, 1 &<< low <= table &- (valueAt &+ 1) else { return .notPlain }
            case 0x3:
                guard valueMarker == 0x33, 8 <= table &- (valueAt &+ 1) else { return .notPlain }
            case 0x4:
                guard span(valueAt, valueMarker) != nil else { return .notPlain }
            case 0x5:
                guard let (count, content) = span(valueAt, valueMarker),
                      Self.isASCII(bytes, content, count) else { return .notPlain }
            default:
                return .notPlain
            }
        }
        return .plain(found: found)
    }
}

extension BinaryPropertyListReader.Parser {
    /// ``checkPlainEntries(lookingUp:)`` when it decides, else ``checkAll(lookingUp:)``.
    mutating func checkEither(lookingUp key: UnsafeBufferPointer<UInt8>?) throws(PropertyListError) -> (root: PropertyListTree, found: Int?) {
        if case .plain(let found) = checkPlainEntries(lookingUp: key) { return (.dictionary(PropertyListDictionary()), found) }
        return try checkAll(lookingUp: key)
    }
}

extension BinaryPropertyListReader {
    /// What each of the two checks says of `data` with `key` looked up, for the
    /// differential test: the plain-entries check's outcome (nil when it left the
    /// file to the general check, or the header itself was refused) and the general
    /// check's (the value object found, or its error). Both run on the same bytes.
    package static func bothChecks(_ data: Data, lookingUp key: String?) -> (plain: Int??, general: Result<Int?, PropertyListError>) {
        func run(_ utf8: UnsafeBufferPointer<UInt8>?) -> (plain: Int??, general: Result<Int?, PropertyListError>) {
            do throws(PropertyListError) {
                return try data.withBytes { (raw) throws(PropertyListError) in
                    var parser = try Parser(raw.bindMemory(to: UInt8.self), allowingUIDs: false)
                    defer { parser.release() }
                    let plain: Int??
                    if case .plain(let found) = parser.checkPlainEntries(lookingUp: utf8) { plain = .some(found) } else { plain = nil }
                    do throws(PropertyListError) {
                        let (root, found) = try parser.checkAll(lookingUp: utf8)
                        guard root.kind == "dictionary" else { return (plain, .failure(PropertyListError("its root is a \(root.kind)"))) }
                        return (plain, .success(found))
                    } catch {
                        return (plain, .failure(error))
                    }
                }
            } catch {
                return (nil, .failure(error))
            }
        }
        guard var key else { return run(nil) }
        return key.withUTF8 { run($0) }
    }
}
