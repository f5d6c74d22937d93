#if canImport(XCTest)
import AppGroupSimulation
import XCTest

extension XCTestCase {
    /// A fresh simulated device for this test, ended when the test ends (after
    /// its teardown blocks run): removed, or kept per `APPGROUP_KEEP_DEVICE` when
    /// the test recorded a failure (a failed assertion, an error thrown by the test
    /// method) or the device saw one (see ``SimulatedDevice/hasFailed``). A process
    /// the device launched that outlives it fails the test, named
    /// (``SimulatedDevice/leakedProcesses``).
    ///
    /// ```swift
    /// final class ShareTests: XCTestCase {
    ///     func testTheAppSeesTheShare() throws {
    ///         let device = try makeSimulatedDevice()      // no defer needed
    ///         let share = try SimulatedTarget(name: "NotesShare", kind: .shareExtension, teamIdentifier: "A1B2C3D4E5",
    ///                                         bundleIdentifier: "com.example.notes.share",
    ///                                         applicationGroups: ["group.com.example.notes"])
    ///         try device.spawn(built: "NotesShareHost", ["--url", "https://example.com"],
    ///                          as: share).requireSuccess()
    ///     }
    /// }
    /// ```
    /// - Parameter name: a prefix for the device's directory name.
    /// - Throws: ``SimulationError/invalidDeviceName(_:)`` for an unusable name; ``SimulationError/invalidKeepPolicy(_:)``
    ///   for an unknown `APPGROUP_KEEP_DEVICE`; an error when the directory cannot be made.
    public func makeSimulatedDevice(name: String = "SimulatedDevice") throws -> SimulatedDevice {
        let verdict = TestVerdict(testName: self.name)
        let device = try TestVerdict.$current.withValue(verdict) { try SimulatedDevice(name: name) }
        // A teardown block runs before the test's run stops; its failure count
        // (not `hasSucceeded`, false until the run stops) is the verdict so far.
        let testCase = WeakTestCase(testCase: self)
        addTeardownBlock {
            if let run = testCase.testCase?.testRun, run.totalFailureCount > 0 {
                verdict.recordFailure("\(run.totalFailureCount) failure(s) recorded")
            }
            // A process that outlived the device fails the test, named.
            for leak in verdict.finish() { XCTFail(leak) }
        }
        return device
    }
}

/// The test case, for a teardown block that an XCTest version may require to be
/// `@Sendable`: the block runs on the test's own thread, after the test method.
private struct WeakTestCase: @unchecked Sendable {
    weak var testCase: XCTestCase?
}
#endif
