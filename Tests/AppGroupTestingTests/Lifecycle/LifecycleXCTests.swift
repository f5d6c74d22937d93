import AppGroupTesting
import DeviceTestSupport
import Foundation
import XCTest

/// The lifecycle in XCTest's form: the classic 0xdead10cc and the
/// background-suspend-resume-terminate script, with synchronous waits.
final class LifecycleXCTests: XCTestCase {
    func launchProbe(_ arguments: [String], as target: SimulatedTarget, on device: SimulatedDevice) throws -> LaunchedProcess {
        let process = try device.launch(built: "LifecycleProbe", arguments, as: target)
        XCTAssertTrue(process.waitForLine("ready", timeout: 60), process.standardError)
        return process
    }

    func testAWidgetSuspendedInsideACoordinatedWriteIsKilledWith0xdead10cc() throws {
        let device = try makeSimulatedDevice(name: "LifecycleXCTest")
        let notes = try NotesExample()
        let group = try device.resolver(for: notes.app).requireContainerURL(forSecurityApplicationGroupIdentifier: NotesExample.groupIdentifier)
        let widget = try launchProbe(["coordinated-write", "--file", group.appendingPathComponent("timeline.json").path],
                                     as: notes.widget, on: device)
        XCTAssertTrue(widget.waitForLine("inside", timeout: 60))
        try device.moveToBackground(widget)
        guard case .killed(let report) = try device.suspend(widget) else {
            return XCTFail("the widget was suspended inside a coordinated write and not killed")
        }
        XCTAssertEqual(report.reason.code, "0xdead10cc")
        XCTAssertEqual(device.terminations, [report])
    }

    func testAnAppIsMovedThroughItsLifecycle() throws {
        let device = try makeSimulatedDevice(name: "LifecycleXCTest")
        let notes = try NotesExample()
        let app = try launchProbe(["observe"], as: notes.app, on: device)
        try device.moveToBackground(app)
        XCTAssertEqual(try device.suspend(app), .suspended)
        XCTAssertThrowsError(try device.suspend(app)) { error in
            XCTAssertEqual((error as? SimulationError)?.lifecycle?.state, .suspended)
        }
        try device.resume(app)
        XCTAssertNotNil(app.waitForLine("notified UIApplicationDidBecomeActiveNotification", timeout: 30))
        XCTAssertEqual(try device.terminate(app).reason, .terminatedBySystem)
    }
}
