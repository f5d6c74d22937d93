import AppGroupTesting
import AppGroupContainer
import Foundation
import Testing
@testable import SharedDefaults
import TestSupport

@Suite("Corrupt suite files", .tags(.hostile), .dedicatedThreads)
struct CorruptSuiteTests {
    static func truncatedBinary() throws -> Data {
        let valid = try PropertyListSerialization.data(fromPropertyList: ["a": "some value", "b": [1, 2, 3]], format: .binary, options: 0)
        return valid.prefix(valid.count / 2)
    }

    static func arrayRoot() throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: ["not", "a", "dictionary"], format: .binary, options: 0)
    }

    @Test("reads report the file; a write moves it aside and starts a fresh suite",
          arguments: ["garbage", "truncated binary", "array root", "empty"])
    func corruptFile(kind: String) throws {
        let device = try Device()
        let defaults = try device.defaults()
        let bad: Data
        switch kind {
        case "garbage": bad = Data("this is not a property list \u{1}\u{2}".utf8)
        case "truncated binary": bad = try Self.truncatedBinary()
        case "array root": bad = try Self.arrayRoot()
        default: bad = Data()
        }
        try AtomicFile.write(bad, to: defaults.fileURL, below: .marked(above: defaults.fileURL))
        let path = defaults.fileURL.path

        // The throwing read names the file.
        #expect {
            try defaults.load(forKey: "a")
        } throws: { error in
            guard case .corruptSuite(path, _, nil)? = error as? SharedDefaultsError else { return false }
            return "\(error)".contains(path)
        }
        // The UserDefaults-shaped read returns nil and records why.
        #expect(defaults.object(forKey: "a") == nil)
        guard case .corruptSuite(path, _, nil)? = defaults.lastError else {
            Issue.record("lastError is \(String(describing: defaults.lastError))")
            return
        }
        // A refused write leaves the bad file where it is.
        #expect(throws: SharedDefaultsError.self) { try defaults.save(NotAPlist(), forKey: "x") }
        #expect(try Data(contentsOf: defaults.fileURL) == bad)

        // A write moves it aside, under a name it reports, then starts afresh.
        defaults.clearLastError()
        try defaults.save("fresh", forKey: "new")
        guard case .corruptSuite(path, _, let movedTo?)? = defaults.lastError else {
            Issue.record("lastError is \(String(describing: defaults.lastError))")
            return
        }
        #expect(movedTo.hasPrefix(path + ".corrupt-"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: movedTo)) == bad, "the bad file is kept, byte for byte")
        #expect(try defaults.persistentDomain().keys.sorted() == ["new"])
        let other = try device.defaults(as: device.share)
        #expect(other.string(forKey: "new") == "fresh")
    }
}
