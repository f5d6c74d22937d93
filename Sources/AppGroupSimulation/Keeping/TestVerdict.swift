import AppGroupContainer
import Foundation

/// The verdict of one running test, which the devices made during it wait for
/// before they are kept or removed. Swift Testing's `.simulatedDevices` (``SimulatedDevicesTrait``)
/// trait and XCTest's `makeSimulatedDevice()` make one; without either, a device
/// judges by what it saw itself (``SimulatedDevice/hasFailed``).
package final class TestVerdict: Sendable {
    /// The verdict of the test the current task runs, if one is being kept.
    @TaskLocal package static var current: TestVerdict?

    /// The test's name, for the line that says a device was kept.
    let testName: String
    private struct State {
        var firstFailure: String?
        var devices: [SimulatedDevice] = []
        var running = true
    }
    private let state = Locked(State())

    package init(testName: String) {
        self.testName = testName
    }

    /// Notes that the test failed (the first description is the one reported).
    package func recordFailure(_ description: String) {
        state.withLock { if $0.firstFailure == nil { $0.firstFailure = description } }
    }

    /// The first failure recorded, nil while the test has not failed.
    var failure: String? { state.withLock { $0.firstFailure } }

    /// True until ``finish()``.
    var isRunning: Bool { state.withLock { $0.running } }

    /// Holds `device` until the test ends; false when it has already ended.
    func adopt(_ device: SimulatedDevice) -> Bool {
        state.withLock { state in
            guard state.running else { return false }
            state.devices.append(device)
            return true
        }
    }

    /// The test has ended: each device it held is now kept or removed. Returns
    /// what outlived them (``SimulatedDevice/leakedProcesses``), for the test to fail with.
    @discardableResult
    package func finish() -> [String] {
        let held = state.withLock { state in
            state.running = false
            defer { state.devices = [] }
            return state.devices
        }
        for device in held { device.remove() }
        return held.flatMap(\.leakedProcesses)
    }
}

/// The devices alive in this process, by directory, so that a failure found on a
/// process's outcome (which names only the device's directory) reaches its device.
enum LiveDevices {
    private final class Weak: @unchecked Sendable {
        weak var device: SimulatedDevice?
        init(_ device: SimulatedDevice) { self.device = device }
    }

    private static let byPath = Locked<[String: Weak]>([:])

    static func add(_ device: SimulatedDevice) {
        byPath.withLock { $0[device.directory.path] = Weak(device) }
    }

    static func remove(_ device: SimulatedDevice) {
        byPath.withLock { _ = $0.removeValue(forKey: device.directory.path) }
    }

    /// Marks the device at `directory` (if it is alive) failed.
    static func recordFailure(_ description: String, onDeviceAt directory: URL?) {
        guard let directory else { return }
        let device = byPath.withLock { $0[directory.path]?.device }
        device?.recordFailure(description)
    }
}
