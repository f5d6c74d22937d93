import AppGroupTesting
import AppGroupContainer
import Foundation
import PropertyLists
@testable import SharedKeychain
import Testing
import TestSupport

/// Issue 14: the keychain file is read and written by the package's own codec.
/// New files are binary property lists; files earlier versions wrote (XML, through
/// Foundation's `PropertyListEncoder`) still load in a new process, and the next
/// change rewrites them as binary, twin accounts kept apart.
@Suite("Keychain file format", .tags(.multiprocess), .dedicatedThreads)
struct KeychainFileFormatTests {
    @Test("an XML keychain file of an earlier version is read by a probe, and its next change writes binary, with twin accounts kept")
    func earlierXMLFilesStillLoad() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.environment(Targets.app)
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(try Probe.run(["add", "--service", "s", "--account", composed, "--group", Targets.vault, "--value", "one"], app).stdout == "status=0")
        #expect(try Probe.run(["add", "--service", "s", "--account", decomposed, "--group", Targets.vault, "--value", "two"], app).stdout == "status=0")
        let url = box.device.itemsURL(forAccessGroup: Targets.vault)
        let binary = try Data(contentsOf: url)
        #expect(binary.starts(with: Array("bplist00".utf8)), "new files are binary")
        // Foundation's decoder (what earlier versions read with) reads the new file too.
        #expect(try PropertyListDecoder().decode(KeychainFileContent.self, from: binary).items.count == 2)

        // The file as an earlier version wrote it: Foundation's XML encoder.
        let content = try PropertyListTreeDecoder().decode(KeychainFileContent.self, from: PropertyListCodec.read(binary))
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        try encoder.encode(content).write(to: url)
        #expect(try Data(contentsOf: url).starts(with: Array("<?xml".utf8)))

        #expect(try Probe.run(["read", "--service", "s", "--account", composed, "--expect", "one"], app).stdout == "status=0 match")
        #expect(try Probe.run(["read", "--service", "s", "--account", decomposed, "--expect", "two"], app).stdout == "status=0 match")
        #expect(try Probe.run(["add", "--service", "s", "--account", "third", "--group", Targets.vault, "--value", "three"], app).stdout == "status=0")
        #expect(try Data(contentsOf: url).starts(with: Array("bplist00".utf8)), "the change rewrote the file as binary")
        #expect(try Probe.run(["read", "--service", "s", "--account", decomposed, "--expect", "two"], app).stdout == "status=0 match")
        #expect(try box.device.itemCount() == 3)
    }

    @Test("a keychain file of the wrong shape is errSecInvalidKeychain naming the file, and is kept", .tags(.hostile))
    func wrongShape() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let url = box.device.itemsURL(forAccessGroup: Targets.vault)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        var root = PropertyListDictionary()
        root.set(.string("one"), forKey: "format")
        let planted = try PropertyListCodec.write(.dictionary(root), format: .binary)
        try planted.write(to: url)
        let end = try Probe.run(["read", "--service", "s", "--account", "a"], box.environment(Targets.app))
        #expect(end.stdout == "status=-25295", "\(end.stdout) \(end.stderr.prefix(300))")
        #expect(end.stderr.contains(url.path) && end.stderr.contains("format"), "\(end.stderr.prefix(300))")
        #expect(try Data(contentsOf: url) == planted)
    }
}
