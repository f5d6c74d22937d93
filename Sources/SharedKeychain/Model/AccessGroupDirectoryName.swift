import AppGroupContainer

/// The name of an access group's directory under `Keychains/AccessGroups`.
///
/// Exact and one-to-one: a group name is compared by its code units (two Unicode
/// spellings are two groups, ``ExactString``), so its UTF-8 bytes are kept, never
/// normalized. Letters, digits, `-`, `_` and `.` (not first) stand as they are;
/// every other byte is `%` and two uppercase hexadecimal digits. A name that would
/// be empty or longer than ``lengthLimit`` bytes is `~` and the 64 hexadecimal
/// digits of SHA-256 of the group's bytes instead (`~` is never produced by the
/// first form, so the two forms cannot meet). No name is `.`, `..`, starts with a
/// dot or holds a `/`.
enum AccessGroupDirectoryName {
    /// The longest name of the first form, in bytes (well under a file name's 255).
    static let lengthLimit = 160

    static func encode(_ group: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(group.utf8.count)
        for byte in group.utf8 {
            if isKept(byte, first: bytes.isEmpty) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hexDigit(byte >> 4), hexDigit(byte & 0xF)]
            }
            if bytes.count > lengthLimit { break }
        }
        if bytes.isEmpty || bytes.count > lengthLimit { return "~" + SHA256.hex(Array(group.utf8)) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The group a name of the first form stands for, nil for a hashed name
    /// (`~...`, which only the items inside can tell) or for a name `encode` would
    /// not produce (junk in the directory).
    static func decode(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else { return nil }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        guard let group = String(validating: out, as: UTF8.self), encode(group) == name else { return nil }
        return group
    }

    /// True for a name `encode` can produce: what a listing of the directory keeps.
    static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        if bytes.first == UInt8(ascii: "~") {
            return bytes.count == 65 && bytes.dropFirst().allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        }
        return decode(name) != nil
    }

    private static func isKept(_ byte: UInt8, first: Bool) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || (byte == UInt8(ascii: ".") && !first)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        if (0x30...0x39).contains(byte) { return byte - 0x30 }
        if (0x41...0x46).contains(byte) { return byte - 0x41 + 10 }
        return nil
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 { value < 10 ? 0x30 + value : 0x41 + value - 10 }
}
