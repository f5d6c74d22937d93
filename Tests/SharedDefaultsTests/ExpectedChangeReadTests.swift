import AppGroupTesting
import AppGroupContainer
import AppGroupSystem
import Foundation
import Testing
@testable import SharedDefaults
import TestSupport

/// A suite whose last read found another process's save opens its file at once on
/// the next read (open and fstat, no lstat first; SuiteStore's `expectingChange`).
/// Those reads must see every new value another process saved, answer
/// from the cache when nothing changed after all, and meet a removed file, a link
/// or a FIFO planted at the suite's path exactly as a read that takes the lstat first.
@Suite("Reads that expect another process's save", .tags(.multiprocess, .hostile), .serialized, .dedicatedThreads)
struct ExpectedChangeReadTests {
    /// Another process (DefaultsProbe) sets `key` to 1, 2, ... `value`, one durable save each.
    static func save(_ device: Device, _ key: String, _ value: Int) throws {
        let probe = try device.probe(["count", "--suite", Device.group, "--key", key, "--to", "\(value)"], as: device.share)
        let result = probe.wait(timeout: 60)
        #expect(result.status == 0, "the writer failed: \(result.standardError)")
    }

    /// What a read of `defaults` throws (nil when it throws nothing), as text.
    static func error(reading defaults: SharedDefaults) -> String? {
        do {
            _ = try defaults.load(forKey: "n")
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("each read after another process's save sees its value; a read with nothing new is answered from the cache")
    func readsSeeEverySave() throws {
        let device = try Device()
        let reader = try device.defaults()
        let path = reader.fileURL.path
        // The calls a read makes on the suite file itself.
        func calls(_ read: () -> Int) -> (value: Int, calls: [String]) {
            let (trace, value) = FaultInjection.trace(read)
            return (value, trace.filter { $0.path == path }.map(\.call.rawValue))
        }
        for value in 1...4 {
            try Self.save(device, "n", value)
            let read = calls { reader.integer(forKey: "n") }
            #expect(read.value == value, "read after save \(value)")
            // The first read, and the first to find a change, take the lstat; the
            // next ones, each after a change, open at once.
            #expect(read.calls.contains("lstat") == (value <= 2), "read after save \(value): \(read.calls)")
        }
        let parses = reader.store.parseCount
        // Nothing new: the expected change is not there, the cache answers (the
        // open is closed again), and the next read goes back to the lstat.
        let (missed, string) = FaultInjection.trace { reader.string(forKey: "n") }
        let missedCalls = missed.filter { $0.path == path }.map(\.call.rawValue)
        #expect(string == "4" && missedCalls == ["openat", "fstat"], "\(missedCalls)")
        let unchanged = calls { reader.integer(forKey: "n") }
        #expect(unchanged.value == 4 && unchanged.calls == ["lstat"], "\(unchanged.calls)")
        #expect(reader.store.parseCount == parses, "an unchanged suite was parsed again")
        try Self.save(device, "n", 5)
        #expect(reader.integer(forKey: "n") == 5)
        #expect(reader.lastError == nil)
    }

    @Test("a suite removed, or replaced by a link or a FIFO, after a read that found a change: the same outcome as a read that takes the lstat first")
    func plantedAfterAChange() throws {
        let device = try Device()
        let reader = try device.defaults()
        let file = reader.fileURL
        // Removed: an empty suite, no error.
        try Self.save(device, "n", 1)
        #expect(reader.integer(forKey: "n") == 1)
        try Self.save(device, "n", 2)
        #expect(reader.integer(forKey: "n") == 2)
        try FileManager.default.removeItem(at: file)
        #expect(reader.object(forKey: "n") == nil)
        #expect(reader.lastError == nil)

        // A link to a suite outside the container: refused as a fresh reader refuses it.
        try Self.save(device, "n", 3)
        #expect(reader.integer(forKey: "n") == 3)
        try Self.save(device, "n", 4)
        #expect(reader.integer(forKey: "n") == 4)
        let victim = device.simulated.scratch.appendingPathComponent("victim.plist")
        try PropertyListSerialization.data(fromPropertyList: ["n": 999], format: .binary, options: 0).write(to: victim)
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: victim)
        let throughLink = Self.error(reading: reader)
        let freshThroughLink = Self.error(reading: try device.defaults())
        #expect(throughLink != nil && throughLink == freshThroughLink, "link: \(String(describing: throughLink))")
        #expect(throughLink?.contains("symbolic link") == true)
        #expect(reader.integer(forKey: "n") != 999, "the suite behind the link was read")
        try FileManager.default.removeItem(at: file)

        // A FIFO: refused at once (no read waits on it), as a fresh reader refuses it.
        try Self.save(device, "n", 5)
        #expect(reader.integer(forKey: "n") == 5)
        try Self.save(device, "n", 6)
        #expect(reader.integer(forKey: "n") == 6)
        try FileManager.default.removeItem(at: file)
        #expect(mkfifo(file.path, 0o600) == 0)
        let atFIFO = Self.error(reading: reader)
        let freshAtFIFO = Self.error(reading: try device.defaults())
        #expect(atFIFO != nil && atFIFO == freshAtFIFO, "FIFO: \(String(describing: atFIFO))")
        try FileManager.default.removeItem(at: file)

        // And reads go on once a suite is back.
        try Self.save(device, "n", 7)
        #expect(reader.integer(forKey: "n") == 7)
        #expect(reader.string(forKey: "n") == "7")
    }
}
