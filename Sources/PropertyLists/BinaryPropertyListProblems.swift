extension BinaryPropertyListReader {
    /// What the binary reader says when it refuses a file, each message made here,
    /// out of line: formatted where it is thrown, the messages made the object
    /// check too large to inline into the walks (issue 30). Each says what is
    /// wrong and which object or byte.
    enum Problem {
        private static let damaged = "a truncated or damaged binary property list"

        @inline(never)
        static func pastEnd(_ object: Int, at: Int, size: Int, table: Int) -> PropertyListError {
            PropertyListError("\(damaged): object \(object) at byte \(at) needs \(size) bytes, past the end of the object area (byte \(table))")
        }

        @inline(never)
        static func offset(_ object: Int, _ value: UInt64, table: Int) -> PropertyListError {
            PropertyListError("\(damaged): object \(object) has offset \(value), outside the object area (bytes 8 to \(table))")
        }

        @inline(never)
        static func reference(from object: Int, to value: UInt64, objects: Int) -> PropertyListError {
            PropertyListError("\(damaged): object \(object) refers to object \(value), but there are only \(objects)")
        }

        @inline(never)
        static func length(_ object: Int, at: Int) -> PropertyListError {
            PropertyListError("\(damaged): object \(object) at byte \(at) has a length that is not an integer of 1 to 8 bytes")
        }

        @inline(never)
        static func tooMany(_ object: Int, _ claimed: UInt64) -> PropertyListError {
            PropertyListError("\(damaged): object \(object) claims \(claimed) elements, more than the file holds")
        }

        @inline(never)
        static func unknownMarker(_ object: Int, _ marker: UInt8) -> PropertyListError {
            PropertyListError("\(damaged): object \(object) has the unknown marker 0x\(String(marker, radix: 16))")
        }

        @inline(never)
        static func overBudget(fileSize: Int, budget: Int) -> PropertyListError {
            PropertyListError("a binary property list of \(fileSize) bytes expanding to more than \(budget) values (objects referenced from many places); refused")
        }

        @inline(never)
        static func null(_ object: Int, _ marker: UInt8) -> PropertyListError {
            PropertyListError("a binary property list holding a null or fill object (object \(object), marker 0x\(String(marker, radix: 16))), which no defaults, keychain or entitlements file contains")
        }

        @inline(never)
        static func wideInteger(_ object: Int) -> PropertyListError {
            PropertyListError("a binary property list holding an integer wider than 64 bits (object \(object)); refused")
        }

        @inline(never)
        static func nonASCII(_ object: Int) -> PropertyListError {
            PropertyListError("a binary property list with a non-ASCII byte in an ASCII string (object \(object)); such strings must be UTF-16")
        }

        @inline(never)
        static func unpairedSurrogate(_ unit: UInt16, _ object: Int) -> PropertyListError {
            PropertyListError("a binary property list with an unpaired UTF-16 surrogate (0x\(String(unit, radix: 16))) in a string (object \(object)); refused rather than altered")
        }

        @inline(never)
        static func uid(_ object: Int) -> PropertyListError {
            PropertyListError("a binary property list holding a UID (object \(object)), a keyed-archiver reference that no defaults, keychain or entitlements file contains")
        }

        @inline(never)
        static func set(_ object: Int) -> PropertyListError {
            PropertyListError("a binary property list holding a set (object \(object)), which no defaults, keychain or entitlements file contains")
        }

        @inline(never)
        static func tooDeep(_ object: Int) -> PropertyListError {
            PropertyListError("a property list nested deeper than \(PropertyListLimits.maximumDepth) levels of arrays and dictionaries (at object \(object)); refused")
        }

        @inline(never)
        static func cycle(_ child: Int, through object: Int) -> PropertyListError {
            PropertyListError("a binary property list with a cycle: object \(child) contains itself (through object \(object))")
        }

        @inline(never)
        static func keyNotString(_ object: Int, in dictionary: Int) -> PropertyListError {
            PropertyListError("a binary property list whose dictionary (object \(dictionary)) has a key that is not a string (object \(object))")
        }
    }
}
