import AppGroupContainer
import Foundation
import ShareInbox
import Testing
import DeviceTestSupport
import TestSupport

/// An instance keeps the inbox's `Sequence` file open across its journal
/// enqueues. A file put in its place (an atomic save, a removal, a directory
/// planted) must be the one read by the next enqueue, never the held one.
@Suite("Held sequence file", .tags(.hostile), .dedicatedThreads)
struct HeldSequenceTests {
    static func replaceSequence(_ inbox: ShareInbox, with number: UInt64) throws {
        let boot = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let url = inbox.directory.appendingPathComponent("Sequence")
        let line = "\(boot) " + String(repeating: "0", count: 20 - String(number).count) + String(number) + "\n"
        try AtomicFile.write(Data(line.utf8), to: url, below: .marked(above: url))
    }

    @Test("Sequence saved anew, removed, or replaced by a directory between two enqueues of one instance: the next enqueue numbers from the file that is there now")
    func replacedBetweenEnqueues() throws {
        let sandbox = try Sandbox()
        let writer = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share))
        #expect(try writer.enqueue(SharedItem(title: "one")) == 1)
        try Self.replaceSequence(writer, with: 100)
        #expect(try writer.enqueue(SharedItem(title: "two")) == 101, "the held file, not the saved one, was read")
        try FileManager.default.removeItem(at: writer.directory.appendingPathComponent("Sequence"))
        // A new, empty file: not trusted, the highest number on disk counts.
        #expect(try writer.enqueue(SharedItem(title: "three")) == 102)
        let sequence = writer.directory.appendingPathComponent("Sequence")
        try FileManager.default.removeItem(at: sequence)
        try FileManager.default.createDirectory(at: sequence, withIntermediateDirectories: false)
        #expect(try writer.enqueue(SharedItem(title: "four")) == 103, "a directory planted as Sequence is set aside and the file made again")
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        var got: [String] = []
        try app.drain { got.append("\($0.sequenceNumber) \($0.title ?? "?")") }
        #expect(got == ["1 one", "101 two", "102 three", "103 four"])
    }
}
