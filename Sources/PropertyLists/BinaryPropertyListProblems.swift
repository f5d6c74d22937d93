extension BinaryPropertyListReader {
    /// Why the binary reader refuses a file, and the message that says so: what is
    /// wrong and which object or byte. A throw site builds the case (a few register
    /// moves) and ``error()`` formats it out of line: formatted at each site, the
    /// messages made the object check too large to inline into the walks.
    enum Problem {
        case pastEnd(Int, at: Int, size: Int, table: Int)
        case offset(Int, UInt64, table: Int)
        case reference(from: Int, to: UInt64, objects: Int)
        case length(Int, at: Int)
        case tooMany(Int, UInt64)
        case unknownMarker(Int, UInt8)
        case overBudget(fileSize: Int, budget: Int)
        case null(Int, UInt8)
        case wideInteger(Int)
        case nonASCII(Int)
        case unpairedSurrogate(UInt16, Int)
        case uid(Int)
        case set(Int)
        case tooDeep(Int)
        case cycle(Int, through: Int)
        case keyNotString(Int, in: Int)

        @inline(never)
        func error() -> PropertyListError {
            PropertyListError(message)
        }

        private var message: String {
            let damaged = "a truncated or damaged binary property list"
            switch self {
            case let .pastEnd(object, at, size, table):
                return "\(damaged): object \(object) at byte \(at) needs \(size) bytes, past the end of the object area (byte \(table))"
            case let .offset(object, value, table):
                return "\(damaged): object \(object) has offset \(value), outside the object area (bytes 8 to \(table))"
            case let .reference(object, value, objects):
                return "\(damaged): object \(object) refers to object \(value), but there are only \(objects)"
            case let .length(object, at):
                return "\(damaged): object \(object) at byte \(at) has a length that is not an integer of 1 to 8 bytes"
            case let .tooMany(object, claimed):
                return "\(damaged): object \(object) claims \(claimed) elements, more than the file holds"
            case let .unknownMarker(object, marker):
                return "\(damaged): object \(object) has the unknown marker 0x\(String(marker, radix: 16))"
            case let .overBudget(fileSize, budget):
                return "a binary property list of \(fileSize) bytes expanding to more than \(budget) values (objects referenced from many places); refused"
            case let .null(object, marker):
                return "a binary property list holding a null or fill object (object \(object), marker 0x\(String(marker, radix: 16))), which no defaults, keychain or entitlements file contains"
            case let .wideInteger(object):
                return "a binary property list holding an integer wider than 64 bits (object \(object)); refused"
            case let .nonASCII(object):
                return "a binary property list with a non-ASCII byte in an ASCII string (object \(object)); such strings must be UTF-16"
            case let .unpairedSurrogate(unit, object):
                return "a binary property list with an unpaired UTF-16 surrogate (0x\(String(unit, radix: 16))) in a string (object \(object)); refused rather than altered"
            case let .uid(object):
                return "a binary property list holding a UID (object \(object)), a keyed-archiver reference that no defaults, keychain or entitlements file contains"
            case let .set(object):
                return "a binary property list holding a set (object \(object)), which no defaults, keychain or entitlements file contains"
            case let .tooDeep(object):
                return "a property list nested deeper than \(PropertyListLimits.maximumDepth) levels of arrays and dictionaries (at object \(object)); refused"
            case let .cycle(child, object):
                return "a binary property list with a cycle: object \(child) contains itself (through object \(object))"
            case let .keyNotString(object, dictionary):
                return "a binary property list whose dictionary (object \(dictionary)) has a key that is not a string (object \(object))"
            }
        }
    }
}
