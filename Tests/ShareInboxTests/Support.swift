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

    /// The entries under `directory` that are not directories, as sorted relative paths.
    static func files(under directory: URL) -> [String] {
        let manager = FileManager.default
        let paths = (try? manager.subpathsOfDirectory(atPath: directory.path)) ?? []
        return paths.filter { path in
            let type = try? manager.attributesOfItem(atPath: directory.appendingPathComponent(path).path)[.type] as? FileAttributeType
            return type != .typeDirectory
        }.sorted()
    }
}
