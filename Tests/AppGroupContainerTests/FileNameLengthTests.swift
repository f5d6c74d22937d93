import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing

/// The rule that fits a name derived from a valid identifier
/// (a lock file, a temporary) into the 255-byte limit of a file name. (The longest
/// names with real processes writing: SharedDefaultsTests' LongNameTests.)
@Suite("Names at their length limits: the shortening rule", .dedicatedThreads)
struct FileNameLengthTests {
    @Test("the shortening rule: deterministic, within the limit, not splitting a character, SHA-256 of the whole name")
    func shorteningRule() {
        let long = String(repeating: "\u{E9}", count: 200) + ".lock"
        let short = FileNames.fitted(long, keepingSuffix: ".lock")
        #expect(short == FileNames.fitted(long, keepingSuffix: ".lock"))
        #expect(short.utf8.count <= 255 && short.hasSuffix(".lock") && short.hasPrefix("\u{E9}"))
        #expect(!short.unicodeScalars.contains("\u{FFFD}"), "a UTF-8 sequence was split")
        // The first 32 hex digits of SHA-256("abc") are ba7816bf8f01cfea414140de5dae2223.
        let abc = FileNames.fitted("abc", keepingSuffix: "", limit: 2)
        #expect(abc == "~ba7816bf8f01cfea414140de5dae2223")
        #expect(FileNames.fitted("short.plist", keepingSuffix: ".plist") == "short.plist")
        #expect(FileNames.temporaryPrefix(for: String(repeating: "x", count: 255)).utf8.count <= 255 - 21)
    }
}
