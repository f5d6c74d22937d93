import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// A device with the Notes example's targets and the lifecycle probe, for the lifecycle tests.
struct LifecycleFixture {
    let device: SimulatedDevice
    let notes: NotesExample
    let group: URL

    init(name: String = "Lifecycle") throws {
        device = try SimulatedDevice(name: name)
        notes = try NotesExample()
        group = try device.resolver(for: notes.app).requireContainerURL(forSecurityApplicationGroupIdentifier: NotesExample.groupIdentifier)
        var settings = device.lifecycleSettings
        settings.listenerGrace = 2
        device.lifecycleSettings = settings
    }

    /// Launches the probe as `target` and waits for its "ready".
    func probe(_ arguments: [String], as target: SimulatedTarget) async throws -> LaunchedProcess {
        let process = try device.launch(built: "LifecycleProbe", arguments, as: target)
        try await process.requireLine("ready", timeout: 60)
        return process
    }

    /// Launches python3 running `script` as `target` (outside the Landlock sandbox:
    /// Python's standard library lives outside what a target may read) and waits for "ready".
    func python(_ script: String, _ arguments: [String], as target: SimulatedTarget) async throws -> LaunchedProcess {
        let python = try #require(Python.executable)
        let process = try device.launch(python, ["-c", script] + arguments, as: target, sandbox: .unenforced)
        try await process.requireLine("ready", timeout: 60)
        return process
    }

    /// The kernel's state letter of `pid` (`T` when stopped).
    static func kernelState(_ pid: Int32) -> Character? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].drop { $0 == " " }.first
    }
}
