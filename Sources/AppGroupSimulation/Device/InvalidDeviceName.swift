/// A device name that cannot prefix a directory name in the temporary directory.
public struct InvalidDeviceName: CustomStringConvertible, Sendable, Hashable {
    /// The name given.
    public let name: String
    /// What is wrong with it.
    public let problem: String

    /// The longest name, in UTF-8 bytes: with the `-XXXXXX` suffix a directory
    /// name stays within the 255 bytes file systems allow.
    public static let maximumLength = 200

    public var description: String {
        "SimulatedDevice(name: \(String(reflecting: name))) is not a usable device name: \(problem); "
            + "pass a short name without \"/\", such as the test's name"
    }

    /// Why `name` cannot be used, nil when it can. A "/" would put the device
    /// outside the temporary directory.
    static func problem(with name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        // By bytes: a "/" or NUL followed by a combining mark is one Character that
        // equals neither, yet the file system still sees the byte.
        if name.utf8.contains(UInt8(ascii: "/")) { return "it contains \"/\", which would place the device outside the temporary directory" }
        if name.utf8.contains(0) { return "it contains a NUL character" }
        if name.utf8.count > maximumLength { return "it is \(name.utf8.count) bytes long, more than \(maximumLength)" }
        return nil
    }
}
