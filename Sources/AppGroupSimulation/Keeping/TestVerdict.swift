import Foundation

/// The verdict of one running test, which the devices made during it wait for
/// before they are kept or removed. Swift Testing's `.simulatedDevices` (``SimulatedDevicesTrait``)
/// trait and XCTest's `makeSimulatedDevice()` make one; without either, a device
/// judges by what it saw itself (``SimulatedDevice/hasFailed``).
package final class TestVerdict: @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `lock`.
    /// The verdict of the test the current task runs, if one is being kept.
    @TaskLocal package static var current: TestVerdict?

    /// The test's name, for the line that says a device was kept.
    let testName: String
    private let lock = NSLock()
    private var firstFailure: String?
    private var devices: [SimulatedDevice] = []
    private var running = true

    package init(testName: String) {
        self.testName = testName
    }

    /// Notes that the test failed (the first description is the one reported).
    package func recordFailure(_ description: String) {
        locking(lock) { if firstFailure == nil { firstFailure = description } }
    }

    /// The first failure recorded, nil while the test has not failed.
    var failure: String? { locking(lock) { firstFailure } }

    /// True until ``finish()``.
    var isRunning: Bool { locking(lock) { running } }

    /// Holds `device` until the test ends; false when it has already ended.
    func adopt(_ device: SimulatedDevice) -> Bool {
        locking(lock) {
            guard running else { return false }
            devices.append(device)
            return true
        }
    }

    /// The test has ended: each device it held is now kept or removed.
    package func finish() {
        let held = locking(lock) {
            running = false
            defer { devices = [] }
            return devices
        }
        for device in held { device.remove() }
    }
}

/// The devices alive in this process, by directory, so that a failure found on a
/// process's outcome (which names only the device's directory) reaches its device.
enum LiveDevices {
    private final class Weak: @unchecked Sendable {
        weak var device: SimulatedDevice?
        init(_ device: SimulatedDevice) { self.device = device }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var byPath: [String: Weak] = [:] // guarded by `lock`

    static func add(_ device: SimulatedDevice) {
        locking(lock) { byPath[device.directory.path] = Weak(device) }
    }

    static func remove(_ device: SimulatedDevice) {
        locking(lock) { _ = byPath.removeValue(forKey: device.directory.path) }
    }

    /// Marks the device at `directory` (if it is alive) failed.
    static func recordFailure(_ description: String, onDeviceAt directory: URL?) {
        guard let directory else { return }
        let device = locking(lock) { byPath[directory.path]?.device }
        device?.recordFailure(description)
    }
}

/// `lock.withLock(body)`, which Apple's Foundation offers only from macOS 14
/// (the package supports macOS 13).
func locking<R>(_ lock: NSLock, _ body: () throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body()
}
