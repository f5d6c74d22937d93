import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing

/// Shared helpers: the built demo binary, the Notes targets, and parsing what the
/// demo's roles print.
enum Demo {
    static let group = NotesExample.groupIdentifier

    /// `.build/debug/ShareFlowDemo`, built with the test target (it depends on it).
    static func binary() throws -> URL {
        try #require(SimulatedDevice.builtExecutable(named: "ShareFlowDemo"), "ShareFlowDemo was not built beside the test bundle")
    }

    /// `shared <n> <url>` lines of an extension: url -> sequence number.
    static func shared(_ lines: [String]) -> [String: UInt64] {
        var result: [String: UInt64] = [:]
        for line in lines where line.hasPrefix("shared ") {
            let parts = line.split(separator: " ")
            if parts.count == 3, let n = UInt64(parts[1]) { result[String(parts[2])] = n }
        }
        return result
    }

    /// The JSON objects an `app --json` printed.
    static func received(_ lines: [String]) -> [[String: Any]] {
        lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    static func urls(_ items: [[String: Any]]) -> [String] { items.compactMap { $0["url"] as? String } }
    static func sequences(_ items: [[String: Any]]) -> [Int] { items.compactMap { $0["sequence"] as? Int } }

    /// Arguments of the extension role for `group`, sharing `url`.
    static func share(_ url: String, count: Int = 1, file: URL? = nil) -> [String] {
        var arguments = ["extension", "--group", group, "--url", url, "--count", String(count)]
        if let file { arguments += ["--file", file.path] }
        return arguments
    }

    static func app(_ extra: [String] = []) -> [String] { ["app", "--group", group, "--json"] + extra }

    /// A file of `size` pseudo-random bytes in the device's scratch directory.
    static func payload(_ device: SimulatedDevice, name: String = "payload.bin", size: Int) throws -> (url: URL, checksum: String) {
        var generator = SystemRandomNumberGenerator()
        var data = Data(count: size)
        data.withUnsafeMutableBytes { raw in
            for i in 0..<raw.count { raw[i] = UInt8.random(in: 0...255, using: &generator) }
        }
        let url = device.scratch.appendingPathComponent(name)
        try data.write(to: url)
        return (url, fnv1a(data))
    }

    /// The same checksum as the demo's app role prints.
    static func fnv1a(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    /// Entries (recursively, relative paths) under `directory`, bookkeeping files excluded.
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
