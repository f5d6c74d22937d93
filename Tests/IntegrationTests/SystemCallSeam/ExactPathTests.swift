import AppGroupTesting
import Foundation
import ShareInbox
import Testing
import AppGroupSystem
import TestSupport

/// Normalization twins in path checks: a directory whose name differs only in
/// Unicode normalization from an allowed one is another directory.
@Suite("Paths compared by bytes", .tags(.hostile), .dedicatedThreads)
struct ExactPathTests {
    @Test("an attachment in the NFD twin of a readable NFC directory is refused")
    func readableDirectoriesCompareBytes() throws {
        try SimulatedDevice.with(name: "ExactPathTests") { device in
            let dir = device.scratch
            let allowed = dir.appendingPathComponent("caf\u{E9}", isDirectory: true)
            let twin = dir.appendingPathComponent("cafe\u{301}", isDirectory: true)
            for directory in [allowed, twin] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false) }
            try #require(try FileManager.default.contentsOfDirectory(atPath: dir.path).count == 2, "the file system keeps the two spellings apart")
            let secret = twin.appendingPathComponent("secret.txt")
            try Data("not readable".utf8).write(to: secret)
            let fine = allowed.appendingPathComponent("fine.txt")
            try Data("readable".utf8).write(to: fine)
            let inbox = try ShareInbox(directory: dir.appendingPathComponent("Inbox", isDirectory: true), readableDirectories: [allowed])
            #expect {
                try inbox.enqueue(SharedItem(title: "x", attachments: [.init(fileURL: secret)]))
            } throws: { error in
                guard case .unsafePath? = error as? ShareInboxError else { return false }
                return "\(error)".contains("outside the directories this process may read")
            }
            #expect(try inbox.pendingCount() == 0)
            _ = try inbox.enqueue(SharedItem(title: "y", attachments: [.init(fileURL: fine)]))
            #expect(try inbox.pendingCount() == 1)
        }
    }

    @Test("ExactPath.same: equal bytes only, for small, large, empty, substring-made and bridged strings")
    func sameComparesBytes() {
        let small = "/tmp/caf\u{E9}", smallTwin = "/tmp/cafe\u{301}" // canonically equal, other bytes
        #expect(small == smallTwin)
        #expect(!ExactPath.same(small, smallTwin))
        let long = "/var/mobile/Containers/Shared/AppGroup/" + String(repeating: "d\u{E9}j\u{E0}/", count: 20)
        let longTwin = "/var/mobile/Containers/Shared/AppGroup/" + String(repeating: "de\u{301}ja\u{300}/", count: 20)
        #expect(long == longTwin)
        #expect(!ExactPath.same(long, longTwin))
        // The same bytes in other storage: a copy built piece by piece, a substring, NSString.
        let rebuilt = String(decoding: Array(long.utf8), as: UTF8.self)
        #expect(ExactPath.same(long, rebuilt))
        let sliced = String(("x" + long).dropFirst())
        #expect(ExactPath.same(long, sliced))
        #expect(ExactPath.same(long, NSString(string: long) as String))
        #expect(ExactPath.same(small, String(decoding: Array(small.utf8), as: UTF8.self)))
        #expect(ExactPath.same("", ""))
        #expect(!ExactPath.same("", "/"))
        #expect(!ExactPath.same(long, long.dropLast() + "x"))
        #expect(!ExactPath.same(small, String(small.dropLast()) + "e"))
    }
}
