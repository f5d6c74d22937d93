import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import XCTest
import DeviceTestSupport
import TestSupport

/// A failed test's output shows how its device's targets ended.
/// The failing tests run as children (this test bundle started again on one
/// scenario, as KeepDeviceTests does): a widget target crashes with its last words
/// on standard error, then the test fails; the child's output must carry the
/// termination report, through the trait and through `makeSimulatedDevice()`.
@Suite(.tags(.multiprocess, .killed), .enabled(if: TestBundle.executable != nil, "needs the test bundle as an executable (Linux)"), .dedicatedThreads)
struct TerminationsInFailureOutputTests {
    static func expectReport(_ run: KeepDeviceTests.Run, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = run.outcome.standardError
        #expect(run.outcome.status != 0, "the scenario was to fail: \(run.outcome)", sourceLocation: sourceLocation)
        #expect(text.contains("AppGroupTesting: the targets of the simulated device at \(run.device.path) ended so:\ntermination 1: NotesWidget ["),
                "no termination report in the failure output: \(text)", sourceLocation: sourceLocation)
        #expect(text.contains("crash: signal 11") && text.contains("    last words"), "\(text)", sourceLocation: sourceLocation)
        try? FileManager.default.removeItem(at: run.device)
    }

    #if compiler(>=6.2)
    @Test func aFailedTestPrintsItsTargetsTerminationsThroughTheTrait() async throws {
        Self.expectReport(try await KeepDeviceTests.run("swift-testing", "TerminationsScenario/crashedWidgetScenario",
                                                        scenario: "terminations", keep: nil))
    }
    #endif

    @Test func aFailedXCTestPrintsItsTargetsTerminations() async throws {
        Self.expectReport(try await KeepDeviceTests.run("xctest", "AppGroupTestingTests.TerminationsXCTestScenario/testCrashedWidgetScenario",
                                                        scenario: "terminations", keep: nil))
    }
}

/// A widget that crashes with its last words on standard error.
enum CrashedWidget {
    static let onlyAsAChild: Comment = "a scenario that fails on purpose: runs only as a child of TerminationsInFailureOutputTests, which reads its output"

    static func crash(on device: SimulatedDevice) throws {
        try KeepDeviceScenario.populate(device)
        let widget = try device.launch(URL(fileURLWithPath: "/bin/sh"), ["-c", "echo last words >&2; kill -SEGV $$"], as: try NotesExample().widget)
        _ = try device.termination(of: widget, timeout: 60)
    }
}

#if compiler(>=6.2) // the trait needs Swift Testing's issue handling (6.2)
@Suite(.simulatedDevices) struct TerminationsScenario {
    @Test(.enabled(if: KeepDeviceScenario.current == "terminations", CrashedWidget.onlyAsAChild))
    func crashedWidgetScenario() throws {
        let device = try SimulatedDevice(name: "TerminationsScenario")
        defer { device.remove() }
        try CrashedWidget.crash(on: device)
        #expect(KeepDeviceScenario.current == "pass", "this scenario fails on purpose, after its widget crashed")
    }
}
#endif

final class TerminationsXCTestScenario: XCTestCase {
    func testCrashedWidgetScenario() throws {
        guard KeepDeviceScenario.current == "terminations" else { throw XCTSkip(CrashedWidget.onlyAsAChild.rawValue) }
        try CrashedWidget.crash(on: try makeSimulatedDevice(name: "TerminationsScenario"))
        XCTAssertEqual(KeepDeviceScenario.current, "pass", "this scenario fails on purpose, after its widget crashed")
    }
}
