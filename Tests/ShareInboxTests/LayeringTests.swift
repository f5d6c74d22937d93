import AppGroupTesting
import Foundation
import Testing

/// Issue 15, part 1: the inbox is a module above the container and reaches the
/// file system only through the container's `package` primitives. The compiler
/// keeps it from the internal system-call layer (`Sys`); Foundation still
/// re-exports the C library, so this checks its sources for direct calls.
@Suite("ShareInbox layering", .dedicatedThreads)
struct LayeringTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/ShareInbox", isDirectory: true)

    /// The C functions the container wraps, called bare (not as a method or a
    /// declaration): `rename(`, but not `.rename(` or `func rename(`.
    static let rawCallPattern = #"(^|[^.\w])(open|openat|rename|renameat|link|linkat|unlink|unlinkat|rmdir|mkdir|fcntl|flock|fsync|pwrite|write|read|close|lstat|fstat|fstatat|stat|opendir|fdopendir|readdir|dup|chmod|fchmod|inotify_init1|inotify_add_watch)\("#

    @Test("the inbox's sources name no system call and no Sys wrapper, and import no C library")
    func noSystemCallsInTheInbox() throws {
        let rawCall = try Regex(Self.rawCallPattern)
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter { $0.hasSuffix(".swift") }
        try #require(names.contains("ShareInbox.swift"), "the inbox's sources are in \(Self.sources.path)")
        for name in names {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(name), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
                #expect(code.firstMatch(of: rawCall) == nil, "\(name):\(number + 1) calls the C library itself: \(line)")
                #expect(!code.contains("Sys."), "\(name):\(number + 1) reaches the system-call layer: \(line)")
                #expect(!code.hasPrefix("import Glibc") && !code.hasPrefix("import Darwin"), "\(name):\(number + 1): \(line)")
            }
        }
    }
}
