import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// A sandboxed target breaking the device's signal table (a file every target may
/// write) under its observers: a sandboxed target, a plain helper process and the
/// test process itself. Each survives, goes on with the table then at the path,
/// and hears later posts (Signals/README.md, "A table broken under its observers").
@Suite(.tags(.multiprocess, .hostile), .simulatedDevices, .requiresSandbox(.fail), .serialized)
struct SignalTableUnderAttackTests {
    static let name = "notes.changed"
    /// The table's size (Signals/README.md).
    static let tableSize = 131_136

    /// Runs `attack` (a SandboxProbe command line, the table's path appended where
    /// `$TABLE` stands) as the share extension while three processes observe, then
    /// checks that every observer outlives it and hears later posts.
    func observersOutlive(_ attack: [String], expecting answer: String) throws {
        try SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let root = device.root.path
            let tablePath = root + "/.coordination/" + SignalTable.fileName
            let table = try SignalTable.forDevice(root: ContainerRoot(path: root))
            let heard = HandlerCalls()
            let observation = table.observe(Self.name) { heard.add() }
            defer { observation.cancel() }
            try withSignalProbes { probes in
                let target = try device.launch(built: "SignalProbe", ["observe", "--root", root, "--name", Self.name, "--seconds", "300"], as: reader.widget)
                probes.append(target)
                let helper = try SignalProbe.start(["observe", "--root", root, "--name", Self.name, "--seconds", "300"])
                probes.append(helper)
                #expect(target.waitForLine("ready", timeout: 60), "\(target.standardError)")
                #expect(helper.waitForLine("ready", timeout: 60), "\(helper.standardError)")
                let generation = table.mappingGeneration

                let command = attack.map { $0 == "$TABLE" ? tablePath : $0 }
                let done = try device.spawn(built: "SandboxProbe", command, as: reader.share)
                #expect(done.outputLines == [answer], "\(done)")
                // Each process touches the table again: the test process's post, and a
                // post by another target, which maps what it finds at the path.
                table.post(Self.name)
                #expect(try device.spawn(built: "SignalProbe", ["post", "--root", root, "--name", Self.name], as: reader.app).succeeded)

                // The test process maps the table at the path again (when its own
                // access faulted, or when the path names another file).
                #expect(eventually(seconds: 60) {
                    table.post(Self.name)
                    return table.mappingGeneration > generation
                }, "the test process never mapped the table again")

                // Every observer hears posts on the table at the path: four rounds, of
                // which a repair of its mapping supplies at most two deliveries.
                for _ in 0..<4 {
                    let before = (SignalProbe.deliveries(target), SignalProbe.deliveries(helper), heard.value)
                    #expect(try device.spawn(built: "SignalProbe", ["post", "--root", root, "--name", Self.name], as: reader.app).succeeded)
                    #expect(eventually(seconds: 60) {
                        SignalProbe.deliveries(target) > before.0 && SignalProbe.deliveries(helper) > before.1 && heard.value > before.2
                    }, "target \(target.outputLines) helper \(helper.outputLines) test \(heard.value)")
                }
                let whole = try FileManager.default.attributesOfItem(atPath: tablePath)[.size] as? Int
                #expect((whole ?? 0) >= Self.tableSize)
                for observer in [target, helper] {
                    observer.kill(SIGKILL)
                    let end = observer.wait(timeout: 30)
                    #expect(end.signal == SIGKILL, "it ended otherwise than by the test's kill: \(end)")
                }
            }
        }
    }

    @Test("a target truncating the table to nothing under every observer's mapping kills none (SIGBUS), the test process included")
    func truncatedToNothing() throws {
        try observersOutlive(["truncate", "$TABLE", "0"], expecting: "ok")
    }

    @Test("a target truncating the table to its first page: observers whose slot lies past it survive too")
    func truncatedToOnePage() throws {
        try observersOutlive(["truncate", "$TABLE", "4096"], expecting: "ok")
    }

    @Test("a target filling the table with garbage and growing it: observers go on with the table at the path")
    func garbageAndGrowth() throws {
        try observersOutlive(["fill", "$TABLE", "255", String(Self.tableSize * 2)], expecting: "ok")
    }

    @Test("a target replacing the table with a file of its own: observers go on with the table at the path")
    func replaced() throws {
        try observersOutlive(["replace", "$TABLE", String(Self.tableSize)], expecting: "ok")
    }
}

/// Handler calls counted across threads.
private final class HandlerCalls: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
