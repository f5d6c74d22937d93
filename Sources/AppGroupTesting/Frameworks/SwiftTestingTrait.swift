// Issue-handling traits (compactMapIssues) arrived in Swift 6.2's Swift Testing.
#if canImport(Testing) && compiler(>=6.2)
import AppGroupSimulation
import Testing

/// A Swift Testing trait that lets the simulated devices made in a test learn the
/// test's verdict: with `APPGROUP_KEEP_DEVICE=on-failure`, a device is kept when
/// the test records any issue (a failed `#expect` or `#require`, a thrown error),
/// not only when an AppGroupTesting check fails. Devices made in the test are
/// removed (or kept) when the test ends rather than when they are removed, and a
/// process one of them launched that outlives it (``SimulatedDevice/leakedProcesses``)
/// fails the test with an issue naming its pid.
///
/// ```swift
/// @Suite(.simulatedDevices) struct ShareTests {
///     @Test func theAppSeesTheShare() async throws {
///         try await SimulatedDevice.with { device in ... }
///     }
/// }
/// ```
///
/// Why a trait: Swift Testing tells a library about a test's issues only through
/// an issue-handling trait in effect around the test (`Trait.compactMapIssues`),
/// which this one installs; it changes no issue. An issue recorded from a thread
/// outside the test's task (a `DispatchQueue` callback) is not seen.
public struct SimulatedDevicesTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test of a suite it is attached to.
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        let verdict = TestVerdict(testName: test.name)
        // A process that outlived its device fails the test, named.
        defer { for leak in verdict.finish() { Issue.record(Comment(rawValue: leak)) } }
        let observer = IssueHandlingTrait.compactMapIssues { issue in
            // The kind and comments, without the severity "(error)" that an
            // issue's own description ends with: it would read as part of the text.
            if issue.isFailure { verdict.recordFailure("\(issue.kind)" + issue.comments.map { " (\($0.rawValue))" }.joined()) }
            return issue
        }
        try await TestVerdict.$current.withValue(verdict) {
            do {
                try await observer.provideScope(for: test, testCase: testCase, performing: function)
            } catch {
                verdict.recordFailure("it threw \(error)")
                throw error
            }
        }
    }
}

extension Trait where Self == SimulatedDevicesTrait {
    /// The simulated devices made in this test (or in every test of this suite)
    /// follow its verdict: see ``SimulatedDevicesTrait``.
    public static var simulatedDevices: SimulatedDevicesTrait { SimulatedDevicesTrait() }
}
#endif
