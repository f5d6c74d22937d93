import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import XCTest
import DeviceTestSupport

/// Tests that fail on purpose, run only as children of ``KeepDeviceTests`` (the
/// test bundle started again with `APPGROUP_TESTING_SCENARIO` set): a failing
/// test is the only way to see what a failing test leaves behind. In a normal
/// run they are disabled (Swift Testing) or skipped (XCTest).
enum KeepDeviceScenario {
    static let environmentKey = "APPGROUP_TESTING_SCENARIO"
    /// `fail`, `pass`, `throw-in-with`, or nil in a normal run.
    static var current: String? { ProcessInfo.processInfo.environment[environmentKey] }
    /// Why a scenario is skipped in an ordinary run: it fails (or throws) on purpose.
    static let onlyAsAChild: Comment = "a scenario that fails on purpose: runs only as a child of KeepDeviceTests, which checks its device was kept"

    /// Makes a container with a file in it, so that a kept device has something to inspect.
    static func populate(_ device: SimulatedDevice) throws {
        let notes = try NotesExample()
        let container = try device.run(as: notes.app) { try $0.requireContainerURL(forSecurityApplicationGroupIdentifier: NotesExample.groupIdentifier) }
        try Data("evidence".utf8).write(to: container.appendingPathComponent("evidence.txt"))
        print("DEVICE \(device.directory.path)")
    }
}

#if compiler(>=6.2) // the trait needs Swift Testing's issue handling (6.2)
@Suite(.simulatedDevices) struct KeepDeviceSwiftTestingScenario {
    /// A plain `#expect` failure (nothing thrown): only the trait can see it.
    @Test(.enabled(if: KeepDeviceScenario.current == "fail" || KeepDeviceScenario.current == "pass", KeepDeviceScenario.onlyAsAChild))
    func expectationScenario() throws {
        let device = try SimulatedDevice(name: "KeepScenario")
        defer { device.remove() }
        try KeepDeviceScenario.populate(device)
        #expect(KeepDeviceScenario.current == "pass", "this scenario fails on purpose")
    }
}

#endif

/// Without the trait: a body that throws is what the device sees.
@Suite struct KeepDeviceWithoutTraitScenario {
    struct Planned: Error {}

    @Test(.enabled(if: KeepDeviceScenario.current == "throw-in-with", KeepDeviceScenario.onlyAsAChild))
    func throwingBodyScenario() throws {
        try SimulatedDevice.with(name: "KeepScenario") { device in
            try KeepDeviceScenario.populate(device)
            throw Planned()
        }
    }
}

final class KeepDeviceXCTestScenario: XCTestCase {
    func testFailingScenario() throws {
        // XCTSkipUnless would print "required false value but got true" before the reason.
        guard KeepDeviceScenario.current == "fail" || KeepDeviceScenario.current == "pass" else {
            throw XCTSkip(KeepDeviceScenario.onlyAsAChild.rawValue)
        }
        let device = try makeSimulatedDevice(name: "KeepScenario")
        try KeepDeviceScenario.populate(device)
        XCTAssertEqual(KeepDeviceScenario.current, "pass", "this scenario fails on purpose")
    }
}

/// The XCTest helper in a normal run: the device is there during the test and
/// gone once the test has ended (a teardown block registered before it runs after it).
final class SimulatedDeviceXCTestTests: XCTestCase {
    func testTheDeviceIsRemovedAfterAPassingTest() throws {
        var directory: URL?
        addTeardownBlock {
            // Teardown blocks run last-registered first: this one runs after the device's.
            guard let directory else { return XCTFail("the test did not record its device") }
            XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path), "\(directory.path) outlived its passing test")
        }
        let device = try makeSimulatedDevice()
        directory = device.directory
        device.remove() // deferred to the test's end: the device is still there
        XCTAssertTrue(FileManager.default.fileExists(atPath: device.root.path))
        let notes = try NotesExample()
        let outcome = try device.spawn(try SimulatedDevice.requireBuiltExecutable(named: "ShareFlowDemo"),
                                       Demo.share("https://example.com/xctest"), as: notes.shareExtension)
        XCTAssertTrue(outcome.succeeded, outcome.description)
    }
}
