import AppGroupTesting
import Foundation
@testable import SharedDefaults
import Testing
@testable import AppGroupContainer
import AppGroupSystem
import TestSupport
import DeviceTestSupport

/// A hostile look at the suite re-read's openat2 (session 4 review): the walk it
/// falls back to when the kernel refuses keeps the guarantees, re-reads after an
/// atomic replace are exact, and the background release of replaced caches leaks
/// no descriptor.
@Suite("Hostile re-reads", .tags(.hostile, .faults, .soak), .dedicatedThreads)
struct HostileRereadTests {
    /// Replaces `file` atomically (a new inode, as another process's save does) with a suite whose "lane" is `value`.
    static func replace(_ file: URL, lane value: Int) throws {
        let bytes = try PropertyListSerialization.data(fromPropertyList: ["lane": value], format: .binary, options: 0)
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".hostile-\(value)-\(UInt32.random(in: 0...UInt32.max))")
        try bytes.write(to: temporary)
        #expect(rename(temporary.path, file.path) == 0)
    }

    /// What this process's open descriptors name under `directories` (other tests
    /// run in this process at the same time: their descriptors are not counted).
    static func descriptors(under directories: [URL]) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { fd in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd) else { return nil }
            return directories.contains { target.hasPrefix($0.path + "/") } ? target : nil
        }
    }

    @Test("openat2 refused as a seccomp filter would (EPERM, ENOSYS) or EAGAIN: the walk reads the new value, and still refuses a planted link",
          arguments: [Errno.EPERM, .ENOSYS, .EAGAIN])
    func refusedOpenat2FallsBackToTheWalk(_ code: Errno) throws {
        let sandbox = try Sandbox()
        let reader = try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: sandbox.resolver())
        let file = reader.fileURL
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        // The first open of the suite's own path in each read is the openat2; the walk's open after it is let through.
        let armed = Locked(false)
        let refused = Locked(0)
        let plan: FaultInjection.Plan = { call, path in
            guard call == .openat, path == file.path, armed.withLock({ let was = $0; $0 = false; return was }) else { return nil }
            refused.withLock { $0 += 1 }
            return code
        }
        for value in 1...3 {
            try Self.replace(file, lane: value)
            armed.withLock { $0 = true }
            let read = FaultInjection.with(plan) { reader.integer(forKey: "lane") }
            #expect(read == value, "re-read \(value) after openat2 failed with \(code)")
        }
        #expect(refused.withLock { $0 } == 3, "the plan did not reach the openat2")
        #expect(reader.lastError == nil)

        // A link planted at Library/Preferences: the walk refuses it too.
        let preferences = file.deletingLastPathComponent()
        let foreign = sandbox.outside.appendingPathComponent("prefs", isDirectory: true)
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
        try Self.replace(foreign.appendingPathComponent(file.lastPathComponent), lane: 999)
        try FileManager.default.moveItem(at: preferences, to: sandbox.scratch.appendingPathComponent("moved"))
        try FileManager.default.createSymbolicLink(at: preferences, withDestinationURL: foreign)
        armed.withLock { $0 = true }
        let afterLink = FaultInjection.with(plan) { reader.integer(forKey: "lane") }
        #expect(afterLink != 999, "the suite behind the link was read")
        #expect(reader.lastError != nil, "the planted link was not reported")
    }

    /// Re-reads per lane: 500 in the normal run (2,000 in all), 2,500 with `APP_GROUP_SOAK=1` (10,000).
    static var rereadsPerLane: Int { Load.number("APP_GROUP_SOAK_REREADS", normal: 500, soak: 2_500) }

    @Test("many re-reads after atomic replaces on 4 threads: each reads exactly what was just written; each reader holds no more than its batch of replaced files, and none once it is gone")
    func manyRereadsLeakNothing() throws {
        // One device per lane: a suite of its own each.
        let sandboxes = try (0..<4).map { _ in try Sandbox() }
        let devices = sandboxes.map { $0.base.resolvingSymlinksInPath() }
        let stale = Tally(0)
        var (before, after) = (0, 0)
        do {
            let readers = try sandboxes.map { sandbox in
                try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: sandbox.resolver())
        }
        for reader in readers {
            try FileManager.default.createDirectory(at: reader.fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Self.replace(reader.fileURL, lane: 0)
            _ = reader.integer(forKey: "lane")
        }
        before = Self.descriptors(under: devices).count
        #expect(before == 4, "each reader pins its suite: \(Self.descriptors(under: devices))")
        let sendableReaders = Tally(readers)
        onThreads(4, timeout: .infinity) { lane in
            let reader = sendableReaders.current[lane]
            for value in 1...Self.rereadsPerLane {
                try? Self.replace(reader.fileURL, lane: value)
                if reader.integer(forKey: "lane") != value { stale.update { $0 += 1 } }
            }
        }
        #expect(stale.current == 0, "\(stale.current) re-reads returned a value other than the one just written")
        for reader in readers { #expect(reader.lastError == nil) }
        // A reader hands replaced caches to background queues a batch at a time
        // (SuiteStore.retiredBatch): wait for those handed over, generously.
        let held = before + readers.count * SuiteStore.retiredBatch
        let deadline = Date().addingTimeInterval(20)
        after = Self.descriptors(under: devices).count
        while after > held, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            after = Self.descriptors(under: devices).count
        }
        #expect(after <= held, "descriptors on the suites: \(before) before \(4 * Self.rereadsPerLane) re-reads, \(after) after: \(Self.descriptors(under: devices))")
        }
        // The readers are gone: every pin, current or retired, must be closed.
        let deadline = Date().addingTimeInterval(20)
        var gone = Self.descriptors(under: devices).count
        while gone > 0, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            gone = Self.descriptors(under: devices).count
        }
        #expect(gone == 0, "descriptors left on the suites after the readers are gone: \(Self.descriptors(under: devices))")
        report("hostile re-reads: \(4 * Self.rereadsPerLane) re-reads on 4 threads, \(stale.current) stale, descriptors \(before) -> \(after) -> \(gone) once the readers are gone")
    }

    @Test("one reader shared by 6 threads while the file is replaced 1,000 times: no read returns a value older than the last replace finished before it began")
    func sharedReaderUnderReplacesNeverGoesBack() throws {
        let sandbox = try Sandbox()
        let reader = try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: sandbox.resolver())
        let file = reader.fileURL
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Self.replace(file, lane: 0)
        let published = Tally(0)   // the last value whose replace has finished
        let done = Tally(false)
        let stale = Tally<[String]>([])
        let shared = Tally(reader)
        let replaces = 1_000
        onThreads(7, timeout: .infinity) { lane in
            let reader = shared.current
            if lane == 0 {
                for value in 1...replaces {
                    try? Self.replace(file, lane: value)
                    published.update { $0 = value }
                }
                done.update { $0 = true }
                return
            }
            while !done.current {
                let floor = published.current
                let read = reader.integer(forKey: "lane")
                if read < floor { stale.update { $0.append("read \(read) after \(floor) was written") } }
            }
        }
        #expect(stale.current.isEmpty, "\(stale.current.count) stale reads, first: \(stale.current.prefix(3))")
        #expect(reader.integer(forKey: "lane") == replaces)
        #expect(reader.lastError == nil)
    }
}
