import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// A sandboxed target attacking how presenters in other processes are asked:
/// request files where an inbox was, requests on a presenter's socket about an
/// item it cannot reach, a socket of its own in the presenter's place, floods.
/// A presenter obeys only a request whose asker the kernel names and whose reach
/// a descriptor proves (Signals/README.md, "What a presenter believes").
@Suite(.tags(.multiprocess, .hostile), .simulatedDevices, .requiresSandbox(.fail), .serialized)
struct PresenterSocketsUnderAttackTests {
    /// The app (sandboxed) presenting its private draft, and where other processes find it.
    struct PresentingApp {
        let app: LaunchedProcess
        let draft: URL
        let presenters: URL
        /// `<pid>-<start time>`: its registry, its socket.
        let process: String
        let id: String
        var socket: URL { presenters.appendingPathComponent(process + ".sock") }
    }

    static func presentingApp(_ reader: ReaderTargets, on device: SimulatedDevice) throws -> PresentingApp {
        let draft = try PresenterRecordsUnderAttackTests.draft("private draft", of: reader, on: device)
        let app = try device.launch(built: "AppGroupProbe", ["ns-present", "--item", draft.path], as: reader.app)
        #expect(app.waitForLine("ready", timeout: 60), "\(app.standardError)")
        let presenters = device.root.appendingPathComponent(".coordination/presenters")
        let process = try PresenterRecordsUnderAttackTests.processKey(app.processIdentifier)
        let text = try String(contentsOf: presenters.appendingPathComponent(process + ".registry"), encoding: .utf8)
        let id = try #require(text.split(separator: "\n").dropFirst(2).first?.split(separator: " ").first.map(String.init))
        return PresentingApp(app: app, draft: draft, presenters: presenters, process: process, id: id)
    }

    /// A coordinated read of the draft by this process (unsandboxed): the
    /// presenter relinquishes and reacquires, which orders what it printed before.
    static func readAsThisProcess(_ draft: URL, _ app: LaunchedProcess, sourceLocation: SourceLocation = #_sourceLocation) {
        var error: NSError?
        NSFileCoordinator(filePresenter: nil).coordinate(readingItemAt: draft, options: [.withoutChanges], error: &error) { _ in }
        #expect(error == nil, sourceLocation: sourceLocation)
        #expect(app.waitForLine("reacquireAfterRead", timeout: 60), "\(app.outputLines) \(app.standardError)", sourceLocation: sourceLocation)
    }

    static func obeyedNothing(_ app: LaunchedProcess, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!app.outputLines.contains { $0.hasPrefix("accommodate") || $0 == "save" || $0 == "relinquishToWriter" },
                "\(app.outputLines)", sourceLocation: sourceLocation)
    }

    @Test("a request file forged where a presenter's inbox was, naming this process as asker, is never read: the app's presenter does not accommodate its draft's deletion")
    func forgedRequestFilesAreNotRead() throws {
        try SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let presenting = try Self.presentingApp(reader, on: device)
            defer { presenting.app.kill(); presenting.app.wait(timeout: 10) }
            let me = try PresenterRecordsUnderAttackTests.processKey(getpid())
            let inbox = presenting.presenters.appendingPathComponent(presenting.process + ".inbox")
            _ = try device.spawn(built: "SandboxProbe", ["create-directory", inbox.path], as: reader.share)
            for (sequence, line) in [("0000000000000001", "delete \(presenting.id) 0 \(ChangeSignal.encode(presenting.draft.path))"),
                                     ("0000000000000002", "delete \(presenting.id) 1 0 \(ChangeSignal.encode(presenting.draft.path))")] {
                let written = try device.spawn(built: "SandboxProbe", ["write", inbox.appendingPathComponent(me + "_" + sequence).path, line + "\n"], as: reader.share)
                #expect(written.succeeded, "\(written)")
            }
            #expect(try device.spawn(built: "SignalProbe", ["post", "--root", device.root.path, "--name", "presenters." + presenting.process], as: reader.share).succeeded)
            Self.readAsThisProcess(presenting.draft, presenting.app)
            Self.obeyedNothing(presenting.app)
            #expect(try String(contentsOf: presenting.draft, encoding: .utf8) == "private draft")
        }
    }

    @Test("requests on the presenter's socket about an item the asker cannot reach (no descriptor, an O_PATH one, one of the asker's own directory) are answered without reaching the presenter, and said so")
    func unreachableItemsAreNotObeyed() throws {
        try SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let presenting = try Self.presentingApp(reader, on: device)
            defer { presenting.app.kill(); presenting.app.wait(timeout: 10) }
            let documents = presenting.draft.deletingLastPathComponent()
            let group = try device.containerLocation(for: ReaderTargets.group)
            _ = try device.run(as: reader.app) { try $0.requireContainerURL(forSecurityApplicationGroupIdentifier: ReaderTargets.group) }
            let draft = ChangeSignal.encode(presenting.draft.path)
            // The share extension may not open the app's Documents for reading: no proof to be had.
            let opened = try device.spawn(built: "SandboxProbe", ["presenter-ask", presenting.socket.path, "delete \(presenting.id) 1 0 \(draft)", "read:" + documents.path], as: reader.share)
            #expect(opened.outputLines == ["open errno EACCES"], "\(opened)")
            var number = 1
            for (kind, proof) in [("delete", "none"), ("delete", "path:" + documents.path), ("delete", "read:" + group.path),
                                  ("writer", "path:" + documents.path), ("save", "read:" + group.path)] {
                number += 1
                let asked = try device.spawn(built: "SandboxProbe", ["presenter-ask", presenting.socket.path, "\(kind) \(presenting.id) \(number) 0 \(draft)", proof], as: reader.share)
                // Answered, as a request the presenter has nothing to do with is.
                #expect(asked.outputLines == ["answer ok"], "\(kind) with \(proof): \(asked)")
            }
            #expect(presenting.app.waitForErrorLine(timeout: 60) { $0.contains("was not passed to the presenter") } != nil, "\(presenting.app.standardError)")
            Self.readAsThisProcess(presenting.draft, presenting.app)
            Self.obeyedNothing(presenting.app)
            #expect(try String(contentsOf: presenting.draft, encoding: .utf8) == "private draft")
        }
    }

    @Test("a socket a target swapped in for the presenter's gets no request and gives no answer: the writer proceeds as if the presenter had ended, until the presenter listens anew")
    func aSwappedSocketIsNotBelieved() throws {
        try SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let presenting = try Self.presentingApp(reader, on: device)
            defer { presenting.app.kill(); presenting.app.wait(timeout: 10) }
            let impostor = try device.launch(built: "SandboxProbe", ["presenter-impostor", presenting.socket.path, "20"], as: reader.share)
            defer { impostor.kill(); impostor.wait(timeout: 10) }
            #expect(impostor.waitForLine("listening", timeout: 60), "\(impostor.outputLines) \(impostor.standardError)")
            var error: NSError?
            NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: presenting.draft, options: [], error: &error) { url in
                try? Data("the device's".utf8).write(to: url)
            }
            #expect(error == nil, "the impostor's forged error was taken: \(String(describing: error))")
            #expect(impostor.waitForLine("connection", timeout: 60), "the writer did not look at the presenter's socket: \(impostor.outputLines)")
            #expect(!impostor.outputLines.contains { $0.hasPrefix("request") }, "\(impostor.outputLines)")
            // The presenter finds its socket replaced and listens anew: later writers ask it again.
            #expect(presenting.app.waitForErrorLine(timeout: 60) { $0.contains("was removed or replaced") } != nil, "\(presenting.app.standardError)")
            #expect(eventually(seconds: 60) {
                var error: NSError?
                NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: presenting.draft, options: [], error: &error) { _ in }
                return error == nil && presenting.app.outputLines.contains("relinquishToWriter")
            }, "\(presenting.app.outputLines) \(presenting.app.standardError)")
            impostor.kill()
            impostor.wait(timeout: 10)
            #expect(!impostor.outputLines.contains { $0.hasPrefix("request") }, "\(impostor.outputLines)")
        }
    }

    @Test("a flood on a presenter's socket (a line of 64 MiB without a newline, 200 idle connections) costs it bounded memory, is said once, and a real writer is still answered")
    func floodsAreBounded() throws {
        try SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let presenting = try Self.presentingApp(reader, on: device)
            defer { presenting.app.kill(); presenting.app.wait(timeout: 10) }
            let before = try Self.peakMemory(presenting.app.processIdentifier)
            let flood = try device.launch(built: "SandboxProbe", ["presenter-flood", presenting.socket.path, String(64 << 20), "200"], as: reader.share)
            defer { flood.kill(); flood.wait(timeout: 10) }
            #expect(flood.waitForLine("holding", timeout: 120), "\(flood.outputLines) \(flood.standardError)")
            let sent = try #require(flood.outputLines.first { $0.hasPrefix("sent ") })
            // The long line was cut off: its connection closed long before 64 MiB.
            #expect(!sent.hasSuffix("all sent"), "\(sent)")
            #expect(presenting.app.waitForErrorLine(timeout: 60) { $0.contains("longer than 65536 bytes") } != nil, "\(presenting.app.standardError)")
            #expect(presenting.app.waitForErrorLine(timeout: 60) { $0.contains("requests open to this process's presenters") } != nil, "\(presenting.app.standardError)")
            var error: NSError?
            NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: presenting.draft, options: [], error: &error) { url in
                try? Data("the device's".utf8).write(to: url)
            }
            #expect(error == nil)
            #expect(presenting.app.waitForLine("reacquire", timeout: 60), "\(presenting.app.outputLines)")
            let after = try Self.peakMemory(presenting.app.processIdentifier)
            #expect(after - before < 24 << 20, "peak memory grew from \(before) to \(after) bytes")
        }
    }

    @Test("a sandboxed target's coordinated write asks a sandboxed presenter of a group file through its socket: binding and connecting in the coordination tree are allowed")
    func sandboxedTargetsAskEachOther() throws {
        try SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let group = try device.containerLocation(for: ReaderTargets.group)
            _ = try device.run(as: reader.app) { try $0.requireContainerURL(forSecurityApplicationGroupIdentifier: ReaderTargets.group) }
            let note = group.appendingPathComponent("note.txt")
            try Data("old".utf8).write(to: note)
            let app = try device.launch(built: "AppGroupProbe", ["ns-present", "--item", note.path], as: reader.app)
            defer { app.kill(); app.wait(timeout: 10) }
            #expect(app.waitForLine("ready", timeout: 60), "\(app.standardError)")
            let written = try device.spawn(built: "AppGroupProbe", ["ns-write", "--file", note.path, "--text", "new"], as: reader.share)
            #expect(written.succeeded, "\(written)")
            #expect(app.waitForLine("reacquire", timeout: 60), "\(app.outputLines) \(app.standardError)")
            #expect(app.outputLines.contains("relinquishToWriter"), "\(app.outputLines)")
        }
    }

    /// The peak resident memory of process `pid` (VmHWM), in bytes.
    static func peakMemory(_ pid: pid_t) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])) * 1024
    }
}
