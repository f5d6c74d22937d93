import AppGroupContainer
import AppGroupTesting
import Foundation

/// The built ShareFlowDemo binary, the arguments of its roles and parsing what they
/// print, for the tests that run the share flow with it.
package enum Demo {
    package static let group = NotesExample.groupIdentifier

    /// `.build/debug/ShareFlowDemo`, built with the test targets that depend on it.
    package static func binary() throws -> URL {
        try SimulatedDevice.requireBuiltExecutable(named: "ShareFlowDemo")
    }

    /// `shared <n> <url>` lines of an extension: url -> sequence number.
    package static func shared(_ lines: [String]) -> [String: UInt64] {
        var result: [String: UInt64] = [:]
        for line in lines where line.hasPrefix("shared ") {
            let parts = line.split(separator: " ")
            if parts.count == 3, let n = UInt64(parts[1]) { result[String(parts[2])] = n }
        }
        return result
    }

    /// The JSON objects an `app --json` printed.
    package static func received(_ lines: [String]) -> [[String: Any]] {
        lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    package static func urls(_ items: [[String: Any]]) -> [String] { items.compactMap { $0["url"] as? String } }
    package static func sequences(_ items: [[String: Any]]) -> [Int] { items.compactMap { $0["sequence"] as? Int } }

    /// Arguments of the extension role for `group`, sharing `url`.
    package static func share(_ url: String, count: Int = 1, file: URL? = nil) -> [String] {
        var arguments = ["extension", "--group", group, "--url", url, "--count", String(count)]
        if let file { arguments += ["--file", file.path] }
        return arguments
    }

    package static func app(_ extra: [String] = []) -> [String] { ["app", "--group", group, "--json"] + extra }

    /// A file of `size` random bytes in the device's scratch directory, and its checksum.
    package static func payload(_ device: SimulatedDevice, name: String = "payload.bin", size: Int) throws -> (url: URL, checksum: String) {
        let (url, data) = try device.makeScratchFile(named: name, randomBytes: size)
        return (url, fnv1a(data))
    }

    /// The same checksum as the demo's app role prints.
    package static func fnv1a(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
