import AppGroupTesting
import Foundation
import Testing
@testable import SharedDefaults

/// U+FEFF inside keys through a suite: "\u{FEFF}k" and "k" are two
/// keys, in the file and read back by another instance. The codec's own tests of the
/// same spellings are PropertyListsTests' PropertyListByteOrderMarkTests.
@Suite("Suite keys holding U+FEFF", .dedicatedThreads)
struct ByteOrderMarkSuiteTests {
    /// The spellings of PropertyListByteOrderMarkTests (copied: test targets cannot
    /// import one another): U+FEFF first, inside, alone, and their neighbours without it.
    static let spellings = ["\u{FEFF}k", "k", "a\u{FEFF}b", "ab", "\u{FEFF}", "", "\u{FEFF}\u{FEFF}", "k\u{FEFF}",
                            "\u{FEFF}caf\u{E9}", "\u{FEFF}\u{0}k", "\u{FEFF}a\r\nb"]

    @Test("a suite keeps \"\\u{FEFF}k\" and \"k\" as two keys through SharedDefaults, in the file and read back")
    func throughSharedDefaults() throws {
        let device = try Device()
        defer { device.simulated.remove() }
        let defaults = try device.defaults()
        for spelling in Self.spellings where !spelling.isEmpty && !spelling.unicodeScalars.contains("\u{0}") {
            try defaults.save(spelling + "=value", forKey: spelling)
        }
        let other = try device.defaults()
        for spelling in Self.spellings where !spelling.isEmpty && !spelling.unicodeScalars.contains("\u{0}") {
            let value = try other.load(forKey: spelling) as? String
            #expect(value.map { Array($0.unicodeScalars) } == Array((spelling + "=value").unicodeScalars), "\(Array(spelling.unicodeScalars))")
        }
        #expect(try other.storedKeys().count == Self.spellings.filter { !$0.isEmpty && !$0.unicodeScalars.contains("\u{0}") }.count)
    }
}
