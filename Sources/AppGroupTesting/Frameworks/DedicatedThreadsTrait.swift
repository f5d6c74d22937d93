// Scoping traits (TestScoping) and task executors are both in Swift 6.1's toolchain.
#if canImport(Testing) && compiler(>=6.1)
import Testing

/// A Swift Testing trait that runs each test on a thread of its own, so that
/// tests that block a thread (synchronous process waits such as
/// ``LaunchedProcess/wait(timeout:)`` and ``LaunchedProcess/waitForLine(_:timeout:)``,
/// locks, sleeps, long loops) never hold a thread of Swift's cooperative pool.
///
/// ```swift
/// @Suite(.dedicatedThreads) struct ShareExtensionProcessTests {
///     @Test func theAppReceivesEveryShare() throws {
///         let app = try device.launch(...)
///         #expect(app.waitForLine("ready"))      // blocks this test's own thread
///     }
/// }
/// ```
///
/// Why: Swift Testing runs every test, synchronous ones included, on the
/// cooperative pool, which has one thread per core (two on a small CI machine).
/// Two synchronous tests that wait for a minute hold the whole pool for that
/// minute: every async test and every task of the run stalls behind them, and
/// timing-dependent tests fail on the small machine only.
///
/// With the trait, a test's synchronous code and the continuations of its tasks
/// run on its own thread (a task executor preference); child tasks inherit it,
/// tasks it detaches do not. At most as many such tests run at once as the machine
/// has cores (at least two), the parallelism the pool gave them; a test waiting
/// for its turn is suspended and holds no thread. A test's reported time, and a
/// `.timeLimit`, include that wait: prefer a deadline measured inside the test.
/// The deadlines of AppGroupTesting's waits never need a pool thread either, with
/// or without the trait.
///
/// Put it on suites of synchronous tests that wait; async tests that use the async
/// waits (``LaunchedProcess/outcome(timeout:)``, ``LaunchedProcess/line(_:timeout:)``)
/// do not need it. It combines with ``SimulatedDevicesTrait`` (`.simulatedDevices`).
public struct DedicatedThreadsTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test of a suite it is attached to.
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // Only a test case gets a thread and a turn: the scopes of a suite and of
        // a parameterized test wrap cases that each take their own.
        guard testCase != nil else { return try await function() }
        // Task executors need Apple's 2024 runtimes; before them the test runs as
        // it would without the trait.
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return try await function() }
        await TestSlots.shared.take()
        let thread = TestThread(name: "test: " + test.name)
        do {
            try await withTaskExecutorPreference(thread) { try await function() }
        } catch {
            thread.finish()
            await TestSlots.shared.giveBack()
            throw error
        }
        thread.finish()
        await TestSlots.shared.giveBack()
    }
}

extension Trait where Self == DedicatedThreadsTrait {
    /// Each test of this suite (or this test) runs on a thread of its own, never
    /// on Swift's cooperative pool: see ``DedicatedThreadsTrait``.
    public static var dedicatedThreads: DedicatedThreadsTrait { DedicatedThreadsTrait() }
}
#endif
