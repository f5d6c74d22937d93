import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// The exploring scheduler's wire belongs to the device: no target writes its
/// directory, the scheduler learns who asks from the kernel, and what a process
/// writes on its connection is read bounded.
@Suite(.tags(.multiprocess, .hostile), .dedicatedThreads, .requiresSandbox(.fail))
struct ExplorationWireTests {
    /// Finding guarded: every target could write the exploration directory, where
    /// each process's grant FIFO lay (another target could grant it turns, or plant
    /// a link there that the test process then wrote through).
    @Test func aTargetCannotWriteTheSchedulersDirectory() throws {
        let notes = try NotesExample()
        try SimulatedDevice.explore(schedules: 1, seed: 1) { device in
            let directory = device.directory.appendingPathComponent("explore")
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("scheduler").path))
            for arguments in [["write", directory.appendingPathComponent("grant-1").path, "x"],
                              ["remove", directory.appendingPathComponent("scheduler").path],
                              ["create-directory", directory.appendingPathComponent("planted").path]] {
                let outcome = try device.spawn(built: "SandboxProbe", arguments, as: notes.shareExtension)
                #expect(outcome.outputLines.first?.hasPrefix("error ") == true, "\(arguments): \(outcome.outputLines)")
            }
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("scheduler").path))
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("grant-1").path))
        }
    }

    /// A process flooding the scheduler with a request line of a megabyte: the
    /// line is dropped as it arrives and the schedule fails naming the process.
    @Test func aFloodOnTheSchedulersSocketIsDroppedAndNamed() throws {
        let notes = try NotesExample()
        let python = try #require(Python.executable)
        let script = """
        import os, socket
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(os.environ["APPGROUP_EXPLORE"] + "/scheduler")
        s.sendall(b"x" * (1 << 20) + b"\\n")
        s.close()
        """
        let failure = expectSimulationError(\.exploration) {
            try SimulatedDevice.explore(schedules: 1, seed: 1) { device in
                try device.launch(python, ["-c", script], as: notes.shareExtension, sandbox: .unenforced).wait(timeout: 60).requireSuccess()
            }
        }
        #expect(failure?.failure.contains("wrote a request longer than 4096 bytes to the exploring scheduler") == true,
                "\(String(describing: failure))")
    }
}
