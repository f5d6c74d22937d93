import AppGroupTesting
import Foundation

/// What the inbox's library tests need beside AppGroupTesting.
enum InboxFixture {
    /// `size` random bytes in a file of the device's scratch directory (outside
    /// every container, like a file a share sheet hands an extension).
    static func payload(_ device: SimulatedDevice, name: String = "payload.bin", size: Int) throws -> (url: URL, data: Data) {
        var generator = SystemRandomNumberGenerator()
        let data = Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let url = device.scratch.appendingPathComponent(name)
        try data.write(to: url)
        return (url, data)
    }

    /// The files (not directories) under `directory`, as sorted relative paths.
    static func files(under directory: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        var result: [String] = []
        while let path = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: directory.appendingPathComponent(path).path, isDirectory: &isDirectory)
            if !isDirectory.boolValue { result.append(path) }
        }
        return result.sorted()
    }
}
