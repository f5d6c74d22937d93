import AppGroupTesting
import AppGroupContainer
import Foundation
import Testing
@testable import SharedDefaults
import TestSupport

/// A write made inside an `update` or `transaction` closure
/// (the suite's lock is re-entrant on the thread) must never be committed and
/// then overwritten by the outer commit. Real files and locks; a fresh
/// instance reads the file afterwards, so no cache can hide a loss.
@Suite("Writes nested in update and transaction", .dedicatedThreads)
struct NestedWriteTests {
    /// The suite as a fresh instance reads it from disk.
    func onDisk(_ device: Device) throws -> [String: Any] { try device.defaults().persistentDomain() }

    @Test("a set inside update, through the same instance, is kept")
    func setInsideUpdate() throws {
        let device = try Device()
        let d = try device.defaults()
        let result = try d.update(Int.self, forKey: "count") { old in
            d.set("x", forKey: "inner")
            return (old ?? 0) + 1
        }
        #expect(result == 1)
        #expect(d.lastError == nil)
        let disk = try onDisk(device)
        #expect(disk["inner"] as? String == "x")
        #expect(disk["count"] as? Int == 1)
    }

    @Test("a set inside update, through a second instance of the suite, is kept")
    func secondInstanceInsideUpdate() throws {
        let device = try Device()
        let d = try device.defaults()
        let other = try device.defaults()
        try d.update(Int.self, forKey: "count") { old in
            other.set("x", forKey: "inner")
            other.removeObject(forKey: "gone")
            return (old ?? 0) + 1
        }
        #expect(d.lastError == nil && other.lastError == nil)
        let disk = try onDisk(device)
        #expect(disk["inner"] as? String == "x")
        #expect(disk["count"] as? Int == 1)
        #expect(d.string(forKey: "inner") == "x", "the outer instance's cache reflects the nested write")
    }

    @Test("removeObject, Codable set and nested update inside update are all kept")
    func manyKindsInsideUpdate() throws {
        struct Point: Codable, Equatable { var x: Int; var y: Int }
        let device = try Device()
        let d = try device.defaults()
        try d.save("old", forKey: "stale")
        try d.update(Int.self, forKey: "outer") { old in
            d.removeObject(forKey: "stale")
            try d.set(codable: Point(x: 1, y: 2), forKey: "point")
            try d.update(Int.self, forKey: "inner") { ($0 ?? 10) + 1 }
            return (old ?? 0) + 1
        }
        let fresh = try device.defaults()
        #expect(fresh.object(forKey: "stale") == nil)
        #expect(try fresh.value(Point.self, forKey: "point") == Point(x: 1, y: 2))
        #expect(fresh.integer(forKey: "inner") == 11)
        #expect(fresh.integer(forKey: "outer") == 1)
    }

    @Test("writes inside a transaction (same instance, second instance, update, another suite) are kept")
    func insideTransaction() throws {
        let device = try Device()
        let d = try device.defaults()
        let other = try device.defaults()
        let privateSuite = try device.defaults("notes.private")
        try d.transaction { t in
            try t.set(1, forKey: "a")
            d.set("same", forKey: "viaSame")
            other.set("second", forKey: "viaOther")
            try other.update(Int.self, forKey: "counter") { ($0 ?? 0) + 5 }
            privateSuite.set("elsewhere", forKey: "k")
            try t.set(2, forKey: "b")
        }
        #expect(d.lastError == nil && other.lastError == nil && privateSuite.lastError == nil)
        let disk = try onDisk(device)
        #expect(disk["a"] as? Int == 1)
        #expect(disk["b"] as? Int == 2)
        #expect(disk["viaSame"] as? String == "same")
        #expect(disk["viaOther"] as? String == "second")
        #expect(disk["counter"] as? Int == 5)
        #expect(try device.defaults("notes.private").string(forKey: "k") == "elsewhere")
    }

    @Test("a transaction inside a transaction, and update inside both, keep every change")
    func transactionInTransaction() throws {
        let device = try Device()
        let d = try device.defaults()
        let other = try device.defaults()
        try d.transaction { outer in
            try outer.set("o", forKey: "outer")
            try other.transaction { inner in
                try inner.set("i", forKey: "inner")
                try d.update(Int.self, forKey: "n") { ($0 ?? 0) + 1 }
            }
            try outer.set(outer.integer(forKey: "n") + 100, forKey: "fromOuterView")
        }
        let disk = try onDisk(device)
        #expect(disk["outer"] as? String == "o")
        #expect(disk["inner"] as? String == "i")
        #expect(disk["n"] as? Int == 1)
        #expect(disk["fromOuterView"] as? Int == 100, "the transaction's view is its snapshot")
    }

    @Test("a nested write of the outer key itself: the outer write comes after it, in program order")
    func sameKeyProgramOrder() throws {
        let device = try Device()
        let d = try device.defaults()
        try d.save(1, forKey: "k")
        try d.update(Int.self, forKey: "k") { old in
            d.set(50, forKey: "k")
            return (old ?? 0) + 1
        }
        #expect(try device.defaults().integer(forKey: "k") == 2)
        // And a nested write the outer body does not override survives.
        try d.transaction { t in
            d.set(7, forKey: "k")
            _ = t.integer(forKey: "k")
        }
        #expect(try device.defaults().integer(forKey: "k") == 7)
    }

    @Test("2 processes nesting 60 writes each inside updates, racing a third process's 120 increments: nothing lost", .tags(.multiprocess))
    func nestedWritesAcrossProcesses() throws {
        let device = try Device()
        let a = try device.probe(["nested", "--suite", Device.group, "--prefix", "a", "--count", "60"], as: device.app)
        let b = try device.probe(["nested", "--suite", Device.group, "--prefix", "b", "--count", "60"], as: device.share)
        let c = try device.probe(["increment", "--suite", Device.group, "--key", "shared", "--count", "120"], as: device.share)
        for probe in [a, b, c] {
            let result = probe.wait(timeout: 90)
            #expect(result.status == 0, "probe failed: \(result.standardError)")
        }
        let disk = try onDisk(device)
        #expect(disk["acount"] as? Int == 60)
        #expect(disk["bcount"] as? Int == 60)
        #expect(disk["shared"] as? Int == 120)
        for i in 0..<60 {
            #expect(disk["ainner\(i)"] as? Int == i)
            #expect(disk["binner\(i)"] as? Int == i)
        }
    }

    @Test("an observer that writes from its handler while another thread runs a transaction loses nothing")
    func observerWritesDuringTransaction() throws {
        let device = try Device()
        let d = try device.defaults()
        let writer = try device.defaults()
        let done = DispatchSemaphore(value: 0)
        let observation = try d.addObserver(forKey: "trigger") { value in
            guard let n = value as? Int else { return }
            writer.set(n, forKey: "echo")
            if n == 20 { done.signal() }
        }
        defer { observation.cancel() }
        for n in 1...20 {
            try d.transaction { t in
                try t.set(n, forKey: "trigger")
                try t.set(n, forKey: "mine\(n)")
            }
        }
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(eventually(seconds: 10) { (try? device.defaults().integer(forKey: "echo")) == 20 })
        let disk = try onDisk(device)
        for n in 1...20 { #expect(disk["mine\(n)"] as? Int == n) }
    }
}
