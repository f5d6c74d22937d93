import AppGroupContainer
import AppGroupTesting
import Foundation
import ShareInbox
import Testing
import DeviceTestSupport
import TestSupport

/// The asynchronous forms of AppGroupTesting: they work, and they wait without
/// holding a thread of Swift's cooperative pool.
@Suite(.tags(.multiprocess)) struct AppGroupTestingAsyncTests {
    @Test func theAsyncFormsRunCodeAndProcessesAsATarget() async throws {
        let notes = try NotesExample()
        var seen: URL?
        try await SimulatedDevice.with { device in
            seen = device.directory
            await Task.yield() // a real suspension inside the body
            let container = try await device.run(as: notes.app) { resolver in
                await Task.yield()
                return try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: NotesExample.groupIdentifier)
            }
            #expect(container.path == device.root.appendingPathComponent(NotesExample.groupIdentifier).path)
            // The demo's extension role takes the identity from the environment device.run(built:) gives it.
            try await device.run(built: "ShareFlowDemo", Demo.share("https://example.com/async"), as: notes.shareExtension).requireSuccess()
            let senders = try await device.run(as: notes.app) { resolver -> [String] in
                await Task.yield() // the async form, as the first scope above
                var senders: [String] = []
                try ShareInbox(groupIdentifier: Demo.group, resolver: resolver).drain { senders.append($0.senderBundleIdentifier ?? "none") }
                return senders
            }
            #expect(senders == ["ai.systenics.notes.share"])
        }
        let directory = try #require(seen)
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test(.tags(.killed)) func asyncWaitsReadStreamsAndEnds() async throws {
        let process = try LaunchedProcess(executable: URL(fileURLWithPath: "/bin/sh"),
                                          arguments: ["-c", "printf 'one\\ntw'; printf 'o\\nready\\n'; echo oops >&2; exec sleep 60"],
                                          environment: ProcessInfo.processInfo.environment)
        #expect(await process.line("ready"))
        #expect(await process.output(containing: "one\ntwo"))
        #expect(await process.line(where: { $0.hasPrefix("tw") }) == "two")
        #expect(await process.errorLine(where: { $0 == "oops" }) == "oops")
        try await process.requireLine("one")
        process.kill()
        let end = await process.outcome(timeout: 30)
        #expect(end.signal == SIGKILL && !end.timedOut)
        #expect(end.standardOutput == "one\ntwo\nready\n" && end.standardError == "oops\n")
        #expect(await process.outcome(timeout: 1) == end) // safe to wait again
        // A wait on a process that closed its output gives up at once, whatever its timeout.
        #expect(await process.line("never", timeout: 600) == false)
    }

    @Test(.tags(.killed)) func anAsyncWaitPastItsDeadlineKillsTheProcess() async throws {
        let end = try await LaunchedProcess.run(URL(fileURLWithPath: "/bin/sleep"), ["60"], timeout: 0.2)
        #expect(end.timedOut && end.signal == SIGKILL)
        let three = try await LaunchedProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "exit 3"])
        #expect(three.status == 3 && !three.timedOut)
    }

    /// More waiters than the pool has threads, and the one task that lets them
    /// finish queued behind them: blocking waits would hold every pool thread
    /// until their timeouts (the opener could not run, and they would all report
    /// no line); suspended waits leave the threads free.
    @Test func manyAsyncWaitsDoNotHoldThePoolsThreads() async throws {
        try await SimulatedDevice.with { device in
            let gate = device.scratch.appendingPathComponent("gate")
            let waiters = ProcessInfo.processInfo.activeProcessorCount + 4
            var processes: [LaunchedProcess] = []
            for _ in 0..<waiters {
                processes.append(try LaunchedProcess(executable: URL(fileURLWithPath: "/bin/sh"),
                                                     arguments: ["-c", "while [ ! -e '\(gate.path)' ]; do sleep 0.05; done; echo go; exec sleep 60"],
                                                     environment: ProcessInfo.processInfo.environment))
            }
            defer { for process in processes { process.kill() } }
            let seen = await withTaskGroup(of: Bool.self) { group in
                for process in processes {
                    group.addTask { await process.line("go", timeout: 30) }
                }
                group.addTask {
                    _ = FileManager.default.createFile(atPath: gate.path, contents: Data())
                    return true
                }
                var all: [Bool] = []
                for await result in group { all.append(result) }
                return all
            }
            #expect(seen.count == waiters + 1 && seen.allSatisfy { $0 })
        }
    }
}
