import AppGroupTesting
@testable import AppGroupContainer
import AppGroupSystem
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// The device's one cross-process signal (Sources/AppGroupContainer/Signals/README.md),
/// with real processes: a post in one is delivered in another, coalesced, only on
/// its own device, whatever happens to observers.
@Suite("Signals between the processes of a device", .tags(.multiprocess))
struct SignalTableTests {
    @Test func aPostInOneProcessIsDeliveredInAnother() throws {
        try withTemporaryDirectory { root in
            try withSignalProbes { probes in
                let observer = try SignalProbe.start(["observe", "--root", root.path, "--name", "notes.changed"])
                probes.append(observer)
                #expect(observer.waitForLine("ready"))
                try SignalProbe.run(["post", "--root", root.path, "--name", "notes.changed"])
                #expect(observer.waitForLine("delivered 1"), "stderr: \(observer.standardError)")
            }
        }
    }

    @Test("a suspended observer receives nothing until it resumes, then one notice for any number of posts",
          .tags(.killed))
    func suspendedObserverCoalesces() throws {
        try withTemporaryDirectory { root in
            try withSignalProbes { probes in
                let observer = try SignalProbe.start(["observe", "--root", root.path, "--name", "n"])
                probes.append(observer)
                #expect(observer.waitForLine("ready"))
                observer.kill(SIGSTOP)
                #expect(eventually(seconds: 10) { ProcessState.isStopped(observer.processIdentifier) })
                try SignalProbe.run(["post", "--root", root.path, "--name", "n", "--count", "500"])
                #expect(SignalProbe.deliveries(observer) == 0, "a stopped process ran a handler")
                observer.kill(SIGCONT)
                #expect(observer.waitForLine("delivered 1"))
                // One more post: its notice is the second. Had the 500 not been
                // coalesced, their notices would stand before it.
                let table = try SignalTable.forDevice(root: ContainerRoot(root))
                table.post("n")
                #expect(observer.waitForLine("delivered 2"))
                observer.kill(SIGSTOP)
                #expect(SignalProbe.deliveries(observer) == 2, "\(observer.outputLines)")
            }
        }
    }

    @Test func devicesAreIsolated() throws {
        try withTemporaryDirectory { dir in
            let a = dir.appendingPathComponent("A"), b = dir.appendingPathComponent("B")
            for root in [a, b] { try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true) }
            let tableA = try SignalTable.forDevice(root: ContainerRoot(a))
            let tableB = try SignalTable.forDevice(root: ContainerRoot(b))
            #expect(tableA.path != tableB.path)
            let slot = tableA.slot(of: "x")
            let before = tableA.count(slot)
            for _ in 0..<10 { tableB.post("x") }
            #expect(tableA.count(slot) == before)
            try withSignalProbes { probes in
                let observer = try SignalProbe.start(["observe", "--root", a.path, "--name", "x"])
                probes.append(observer)
                #expect(observer.waitForLine("ready"))
                try SignalProbe.run(["post", "--root", b.path, "--name", "x", "--count", "50"])
                try SignalProbe.run(["post", "--root", a.path, "--name", "x"])
                #expect(observer.waitForLine("delivered 1"))
                observer.kill(SIGSTOP)
                #expect(SignalProbe.deliveries(observer) == 1, "B's posts reached A: \(observer.outputLines)")
            }
        }
    }

    @Test("a killed observer never blocks a post, and later observers still hear", .tags(.killed))
    func killedObserverBlocksNothing() throws {
        try withTemporaryDirectory { root in
            try withSignalProbes { probes in
                let doomed = try SignalProbe.start(["observe", "--root", root.path, "--name", "k"])
                probes.append(doomed)
                #expect(doomed.waitForLine("ready"))
                doomed.kill()
                doomed.wait(timeout: 10)
                let table = try SignalTable.forDevice(root: ContainerRoot(root))
                for _ in 0..<10_000 { table.post("k") } // returns: nothing waits for the dead
                let observer = try SignalProbe.start(["observe", "--root", root.path, "--name", "k"])
                probes.append(observer)
                #expect(observer.waitForLine("ready"))
                table.post("k")
                #expect(observer.waitForLine("delivered 1"))
            }
        }
    }

    @Test func aFullTableStillDeliversEveryName() throws {
        try withTemporaryDirectory { root in
            let table = try SignalTable.forDevice(root: ContainerRoot(root))
            let names = (0..<(SignalTable.slotCount + 2_000)).map { "name.\($0)" }
            let slots = names.map { table.slot(of: $0) }
            #expect(slots.contains(0), "the table never filled")
            let last = names.last!
            let heard = Locked(0)
            let observation = table.observe(last) { heard.withLock { $0 += 1 } }
            defer { observation.cancel() }
            table.post(last)
            #expect(eventually(seconds: 20) { heard.withLock { $0 } >= 1 })
        }
    }

    @Test("thousands of observers and posts keep memory flat", .tags(.soak))
    func soak() throws {
        try withTemporaryDirectory { root in
            let table = try SignalTable.forDevice(root: ContainerRoot(root))
            let heard = Locked(0)
            func resident() -> Int {
                let fields = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ") ?? []
                return fields.count > 1 ? (Int(fields[1]) ?? 0) * 4096 : 0
            }
            var peak = 0
            var baseline = 0
            for round in 0..<Load.number("APP_GROUP_SOAK_SIGNAL_ROUNDS", normal: 3, soak: 30) {
                let observations = (0..<2_000).map { i in table.observe("soak.\(i)") { heard.withLock { $0 += 1 } } }
                for i in 0..<20_000 { table.post("soak.\(i % 2_000)") }
                #expect(eventually(seconds: 60) { heard.withLock { $0 } >= 2_000 * (round + 1) })
                for observation in observations { observation.cancel() }
                if round == 0 { baseline = resident() }
                peak = max(peak, resident())
            }
            #expect(peak - baseline < 64 << 20, "resident memory grew by \((peak - baseline) >> 20) MiB")
        }
    }
}

/// Files planted at the table's path, damaged tables, another user's file, EMFILE.
@Suite("A hostile signal table", .tags(.hostile))
struct HostileSignalTableTests {
    static func tablePath(_ root: URL) -> String { root.path + "/.coordination/" + SignalTable.fileName }

    func prepare(_ root: URL) throws {
        try CoordinationTree.prepare(root: root.path)
    }

    @Test func aPlantedFIFOIsReplaced() throws {
        try withTemporaryDirectory { root in
            try prepare(root)
            #expect(mkfifo(Self.tablePath(root), 0o600) == 0)
            let table = try SignalTable.forDevice(root: ContainerRoot(root))
            let st = try SystemCalls.lstat(table.path)
            #expect(st.map(SystemCalls.isRegular) == true)
        }
    }

    @Test func aPlantedLinkIsNotFollowed() throws {
        try withTemporaryDirectory { root in
            try prepare(root)
            let victim = root.appendingPathComponent("victim")
            try Data("keep".utf8).write(to: victim)
            try FileManager.default.createSymbolicLink(atPath: Self.tablePath(root), withDestinationPath: victim.path)
            let table = try SignalTable.forDevice(root: ContainerRoot(root))
            table.post("x")
            #expect(try Data(contentsOf: victim) == Data("keep".utf8))
        }
    }

    @Test func aPlantedHardLinkIsNotWritten() throws {
        try withTemporaryDirectory { root in
            try prepare(root)
            let victim = root.appendingPathComponent("victim")
            try Data(count: SignalTable.size).write(to: victim)
            #expect(link(victim.path, Self.tablePath(root)) == 0)
            let table = try SignalTable.forDevice(root: ContainerRoot(root))
            table.post("x")
            #expect(try Data(contentsOf: victim) == Data(count: SignalTable.size))
        }
    }

    @Test func aCorruptTableIsKeptAsideAndReplaced() throws {
        try withTemporaryDirectory { root in
            try prepare(root)
            try Data("not a table".utf8).write(to: URL(fileURLWithPath: Self.tablePath(root)))
            let table = try SignalTable.forDevice(root: ContainerRoot(root))
            table.post("x")
            let names = try FileManager.default.contentsOfDirectory(atPath: root.path + "/.coordination")
            #expect(names.contains { $0.hasPrefix(SignalTable.fileName + ".corrupt-") }, "\(names)")
        }
    }

    @Test func aTableOfTheRightSizeWithoutItsMarkIsKeptAside() throws {
        try withTemporaryDirectory { root in
            try prepare(root)
            try Data(repeating: 0xFF, count: SignalTable.size).write(to: URL(fileURLWithPath: Self.tablePath(root)))
            _ = try SignalTable.forDevice(root: ContainerRoot(root))
            let names = try FileManager.default.contentsOfDirectory(atPath: root.path + "/.coordination")
            #expect(names.contains { $0.hasPrefix(SignalTable.fileName + ".corrupt-") }, "\(names)")
        }
    }

    #if DEBUG
    @Test(.tags(.faults)) func emfileIsATypedError() throws {
        try withTemporaryDirectory { root in
            let prefix = root.path + "/"
            let error = FaultInjection.with({ call, path in call == .openat && path.hasPrefix(prefix) && path.hasSuffix(SignalTable.fileName) ? .EMFILE : nil }) {
                #expect(throws: AppGroupError.self) { _ = try SignalTable.forDevice(root: ContainerRoot(root)) }
            }
            guard case let .systemCall(_, _, code)? = error else {
                Issue.record("not a system call error: \(String(describing: error))"); return
            }
            #expect(code == .EMFILE)
        }
    }
    #endif
}
