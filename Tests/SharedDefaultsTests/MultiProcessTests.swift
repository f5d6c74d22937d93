import AppGroupTesting
import AppGroupContainer
import Foundation
import Testing
@testable import SharedDefaults
import TestSupport

/// Real processes (DefaultsProbe) racing on one suite, with real files and locks.
@Suite("SharedDefaults across processes", .tags(.multiprocess), .serialized, .dedicatedThreads)
struct MultiProcessTests {
    @Test("4 processes x 1000 update increments end at exactly 4000")
    func fourProcessesNeverLoseAnIncrement() throws {
        let device = try Device()
        let identities = [device.app, device.share, device.share, device.app]
        let probes = try identities.map {
            try device.probe(["increment", "--suite", Device.group, "--key", "counter", "--count", "1000"], as: $0)
        }
        for probe in probes {
            let result = probe.wait(timeout: 100)
            #expect(result.status == 0, "probe failed: \(result.standardError)")
        }
        let defaults = try device.defaults()
        #expect(defaults.integer(forKey: "counter") == 4000)
    }

    @Test("a writer killed with SIGKILL mid-stream leaves a readable suite and no held lock", .tags(.killed))
    func killedWriter() throws {
        let device = try Device()
        let writer = try device.probe(["increment", "--suite", Device.group, "--key", "counter", "--count", "100000"])
        let defaults = try SharedDefaults(requiringSuiteName: Device.group, resolver: device.resolver(),
                                          coordinationTimeout: 10)
        #expect(eventually(seconds: 30) { defaults.integer(forKey: "counter") >= 50 })
        writer.kill()
        let result = writer.wait(timeout: 90)
        #expect(result.status == SIGKILL)
        let before = try #require(try defaults.load(forKey: "counter") as? Int)
        // The kernel dropped the dead writer's lock: this update neither waits nor fails.
        try defaults.update(Int.self, forKey: "counter") { ($0 ?? 0) + 1 }
        #expect(defaults.integer(forKey: "counter") == before + 1)
        #expect(defaults.lastError == nil)
    }

    @Test("a reader process never sees a counter go backwards and sees the last value")
    func readerSeesMonotonicValues() throws {
        let device = try Device()
        let reader = try device.probe(["poll", "--suite", Device.group, "--key", "n", "--until", "500"], as: device.app)
        let writer = try device.probe(["count", "--suite", Device.group, "--key", "n", "--to", "500"], as: device.share)
        let written = writer.wait(timeout: 90)
        #expect(written.status == 0, "writer failed: \(written.standardError)")
        let read = reader.wait(timeout: 90)
        #expect(read.status == 0, "reader failed: \(read.standardError)")
        #expect(read.standardOutput.contains("reached 500"))
    }

    @Test("keys written by two processes at the same time are all present")
    func concurrentWritersKeepEachOthersKeys() throws {
        let device = try Device()
        let a = try device.probe(["set-many", "--suite", Device.group, "--prefix", "a", "--count", "150"], as: device.app)
        let b = try device.probe(["set-many", "--suite", Device.group, "--prefix", "b", "--count", "150"], as: device.share)
        #expect(a.wait(timeout: 90).status == 0)
        #expect(b.wait(timeout: 90).status == 0)
        let domain = try device.defaults().persistentDomain()
        #expect(domain.count == 300)
        for i in 0..<150 {
            #expect(domain["a\(i)"] as? Int == i)
            #expect(domain["b\(i)"] as? Int == i)
        }
    }

    @Test("register(defaults:) is seen by its own process only and never reaches the file")
    func registrationIsVolatileAndPrivate() throws {
        let device = try Device()
        let result = try device.probe(["register", "--suite", Device.group, "--key", "theme", "--value", "dark"]).wait(timeout: 90)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("dark"), "the registering process reads its default")
        let defaults = try device.defaults()
        #expect(defaults.integer(forKey: "written") == 1, "the probe's write is visible")
        #expect(defaults.object(forKey: "theme") == nil, "another process never sees a registered default")
        let data = try Data(contentsOf: defaults.fileURL)
        let onDisk = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        #expect(onDisk?["theme"] == nil)
        #expect(onDisk?.keys.sorted() == ["written"])
    }

    @Test("a value set by another process reaches an observer")
    func observerSeesAnotherProcessWrite() throws {
        let device = try Device()
        let defaults = try device.defaults()
        let seen = Seen()
        let observation = try defaults.addObserver(forKey: "greeting") { value in seen.add(value as? Int) }
        defer { observation.cancel() }
        let result = try device.probe(["count", "--suite", Device.group, "--key", "greeting", "--to", "1"]).wait(timeout: 90)
        #expect(result.status == 0)
        #expect(eventually(seconds: 2) { seen.values.contains(1) }, "delivered within 2 s")
    }

    @Test("the last of 100 rapid writes by another process is always delivered, in order")
    func lastOfRapidWritesArrives() async throws {
        let device = try Device()
        let defaults = try device.defaults()
        let stream = defaults.observe("rapid", as: Int.self)
        let writer = try device.probe(["count", "--suite", Device.group, "--key", "rapid", "--to", "100"])
        let received = try await withThrowingTaskGroup(of: [Int?].self) { group in
            group.addTask {
                var values: [Int?] = []
                for await value in stream {
                    values.append(value)
                    if value == 100 { break }
                }
                return values
            }
            group.addTask {
                try await Task.sleep(nanoseconds: 20_000_000_000)
                return []
            }
            let first = try await group.next() ?? []
            group.cancelAll()
            return first
        }
        #expect(writer.wait(timeout: 90).status == 0)
        #expect(received.last == 100, "received \(received)")
        let numbers = received.compactMap { $0 }
        #expect(numbers == numbers.sorted(), "values arrive in order: \(numbers)")
    }

    @Test("an observer in another process sees this process's writes")
    func observerInAnotherProcess() throws {
        let device = try Device()
        let watcher = try device.probe(["watch", "--suite", Device.group, "--key", "k", "--until", "3"])
        #expect(watcher.waitForOutput(containing: "ready"))
        let defaults = try device.defaults()
        for n in 1...3 { try defaults.save(n, forKey: "k") }
        let result = watcher.wait(timeout: 10)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.split(separator: "\n").last == "3")
    }
}

final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Int?] = []
    func add(_ value: Int?) { lock.withLock { stored.append(value) } }
    var values: [Int?] { lock.withLock { stored } }
}
