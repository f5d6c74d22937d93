import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
@testable import SharedDefaults
import TestSupport
import DeviceTestSupport

/// Hostile property lists through a suite: a
/// hostile suite file is a corrupt-suite diagnosis and the next write moves it aside;
/// hostile Data stored under a key gives the Codable and URL readers an error or nil;
/// a damaged value elsewhere in a file another writer saved is reported on reading an
/// intact key. The codec's own tests on the same inputs are PropertyListsTests'
/// PropertyListCodecHostileTests and PropertyListCheckTests.
@Suite("Hostile property lists through a suite", .tags(.hostile), .dedicatedThreads)
struct HostileSuiteFileTests {
    @Test("hostile suite files are corrupt-suite diagnoses; the next write moves them aside and keeps working")
    func throughTheSuite() throws {
        for (name, data) in HostilePropertyLists.cases where !data.isEmpty {
            let sandbox = try Sandbox()
            let defaults = try suite(sandbox)
            try FileManager.default.createDirectory(at: defaults.fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: defaults.fileURL)
            #expect(throws: SharedDefaultsError.self, "\(name)") { try defaults.load(forKey: "a") }
            try defaults.save(1, forKey: "fresh")
            #expect(try suite(sandbox).integer(forKey: "fresh") == 1, "\(name)")
        }
    }

    @Test("hostile Data stored under a key: the Codable and URL readers give an error or nil, never a crash")
    func storedDataReaders() throws {
        let sandbox = try Sandbox()
        let defaults = try suite(sandbox)
        let hostile = [HostilePropertyLists.deepXML(10_000), HostilePropertyLists.deepXML(100_000), HostilePropertyLists.deepBinary(100_000), binaryPlistWithSet(),
                       HostilePropertyLists.bplist([[0xA1, 0x00]]), HostilePropertyLists.bplist((0..<60).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] } + [[0x10, 1]])]
        for (i, data) in hostile.enumerated() {
            try defaults.save(data, forKey: "blob")
            #expect(throws: SharedDefaultsError.self, "input \(i)") { try defaults.value([Int].self, forKey: "blob") }
            #expect(defaults.url(forKey: "blob") == nil, "input \(i)")
        }
    }

    @Test("after another writer's save, a suite whose other value is damaged reports the damage on reading an intact key")
    func damageElsewhereIsReported() throws {
        let sandbox = try Sandbox()
        let defaults = try suite(sandbox)
        try defaults.save("before", forKey: "a")
        #expect(defaults.string(forKey: "a") == "before")
        // {"a": "ok", "b": <an ASCII string holding the byte 0x80>}, written as another process would.
        let damaged = HostilePropertyLists.bplist([[0xD2, 1, 2, 3, 4], [0x51, 0x61], [0x51, 0x62], [0x52, 0x6F, 0x6B], [0x51, 0x80]])
        try damaged.write(to: defaults.fileURL, options: .atomic)
        #expect(throws: SharedDefaultsError.self) { try defaults.load(forKey: "a") }
        #expect(defaults.string(forKey: "a") == nil)
        // Repaired by another writer: the intact file reads, first one key, then all.
        let repaired = HostilePropertyLists.bplist([[0xD2, 1, 2, 3, 4], [0x51, 0x61], [0x51, 0x62], [0x52, 0x6F, 0x6B], [0x51, 0x7E]])
        try repaired.write(to: defaults.fileURL, options: .atomic)
        #expect(defaults.string(forKey: "a") == "ok")
        #expect(defaults.string(forKey: "b") == "~")
        #expect(try defaults.storedKeys() == ["a", "b"])
    }
}
