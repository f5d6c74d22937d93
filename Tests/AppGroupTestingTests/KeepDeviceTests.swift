import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// `APPGROUP_KEEP_DEVICE`: a failing test run in a child process (this test bundle
/// started again on one scenario of KeepDeviceScenarios.swift) keeps its device
/// and prints where it is; a passing one, or one not asked to keep, removes it.
enum TestBundle {
    /// The running test bundle, which can be started again on one test.
    static let executable: URL? = {
        #if os(Linux)
        let url = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return url.lastPathComponent.hasSuffix(".xctest") ? url : nil
        #else
        return nil
        #endif
    }()
}

@Suite(.tags(.multiprocess), .enabled(if: TestBundle.executable != nil, "needs the test bundle as an executable (Linux)"), .dedicatedThreads)
struct KeepDeviceTests {

    struct Run {
        let outcome: ProcessOutcome
        let device: URL
        var text: String { outcome.standardOutput + outcome.standardError }
        var kept: Bool { FileManager.default.fileExists(atPath: device.appendingPathComponent("containers/group.ai.systenics.notes/evidence.txt").path) }
    }

    /// Runs `test` of this bundle with the scenario and the keep policy given.
    static func run(_ library: String, _ test: String, scenario: String, keep: String?) async throws -> Run {
        var environment = ProcessInfo.processInfo.environment
        environment[KeepDeviceScenario.environmentKey] = scenario
        environment["APPGROUP_KEEP_DEVICE"] = keep
        let bundle = try #require(TestBundle.executable)
        let arguments = library == "xctest" ? ["--testing-library", "xctest", test]
                                             : ["--testing-library", "swift-testing", "--filter", test]
        let outcome = try await LaunchedProcess.run(bundle, arguments, environment: environment, timeout: 120)
        let line = try #require(outcome.outputLines.first { $0.hasPrefix("DEVICE ") }, "the scenario did not run: \(outcome)")
        return Run(outcome: outcome, device: URL(fileURLWithPath: String(line.dropFirst("DEVICE ".count))))
    }

    static func expectKeptAndAnnounced(_ run: Run, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.kept, "the device was not kept: \(run.outcome)", sourceLocation: sourceLocation)
        #expect(run.text.contains("AppGroupTesting: kept the simulated device at \(run.device.path) (APPGROUP_KEEP_DEVICE=on-failure; "),
                "no line names the kept device: \(run.outcome)", sourceLocation: sourceLocation)
        #expect(run.text.contains("AppGroupTesting: inspect it with: swift run appgroup list --root \(run.device.path)/containers\n"),
                "no appgroup hint: \(run.outcome)", sourceLocation: sourceLocation)
        try? FileManager.default.removeItem(at: run.device)
    }

    static func expectRemovedQuietly(_ run: Run, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!FileManager.default.fileExists(atPath: run.device.path), "\(run.device.path) was left behind", sourceLocation: sourceLocation)
        #expect(!run.text.contains("AppGroupTesting: kept"), sourceLocation: sourceLocation)
    }

    private static let swiftTestingScenario = "KeepDeviceSwiftTestingScenario/expectationScenario"
    private static let xctestScenario = "AppGroupTestingTests.KeepDeviceXCTestScenario/testFailingScenario"

    #if compiler(>=6.2)
    @Test func aFailedExpectationKeepsTheDeviceThroughTheTrait() async throws {
        let run = try await Self.run("swift-testing", Self.swiftTestingScenario, scenario: "fail", keep: "on-failure")
        #expect(run.outcome.status != 0, "the scenario was to fail: \(run.outcome)")
        Self.expectKeptAndAnnounced(run)
        #expect(run.text.contains("the test expectationScenario() failed: Expectation failed: "))
        // The severity is not part of the reason.
        #expect(!run.text.contains(" (error)"), "\(run.text)")
    }

    @Test func aPassingTestOrNoPolicyRemovesTheDevice() async throws {
        let passing = try await Self.run("swift-testing", Self.swiftTestingScenario, scenario: "pass", keep: "on-failure")
        #expect(passing.outcome.succeeded, "\(passing.outcome)")
        Self.expectRemovedQuietly(passing)
        let unasked = try await Self.run("swift-testing", Self.swiftTestingScenario, scenario: "fail", keep: nil)
        #expect(unasked.outcome.status != 0)
        Self.expectRemovedQuietly(unasked)
    }
    #endif

    @Test func aThrowingBodyKeepsTheDeviceWithoutTheTrait() async throws {
        let run = try await Self.run("swift-testing", "KeepDeviceWithoutTraitScenario/throwingBodyScenario", scenario: "throw-in-with", keep: "on-failure")
        Self.expectKeptAndAnnounced(run)
        #expect(run.text.contains("the body of SimulatedDevice.with threw Planned()"))
    }

    @Test func aFailedXCTestKeepsTheDeviceFromMakeSimulatedDevice() async throws {
        let failing = try await Self.run("xctest", Self.xctestScenario, scenario: "fail", keep: "on-failure")
        #expect(failing.outcome.status != 0, "the scenario was to fail: \(failing.outcome)")
        Self.expectKeptAndAnnounced(failing)
        let passing = try await Self.run("xctest", Self.xctestScenario, scenario: "pass", keep: "on-failure")
        #expect(passing.outcome.succeeded, "\(passing.outcome)")
        Self.expectRemovedQuietly(passing)
    }
}
