import AppGroupSimulation

/// What a test that requires the sandbox does where launches would not be
/// enforced: the kernel cannot (``KernelSandbox/isAvailable`` is false: no
/// Landlock), or `APPGROUP_SANDBOX=off` turns the sandbox off for the run.
public enum SandboxRequirement: Sendable, Hashable {
    /// Skip the test, saying why: for tests that are meaningless unenforced.
    case skip
    /// Fail it, saying why: for a CI that must prove what the sandbox refuses.
    case fail

    /// Why the test cannot run as it requires, for its skip or failure; nil when it can.
    static var shortfall: String? {
        KernelSandbox.whyLaunchesAreUnenforced.map { "this test requires the simulated targets' sandbox, which is \($0)" }
    }
}

#if canImport(Testing) && compiler(>=6.3)
import Testing

/// A Swift Testing trait for tests that must run their targets inside the
/// kernel-enforced sandbox: where Landlock is unavailable the test is skipped
/// (``SandboxRequirement/skip``) or fails (``SandboxRequirement/fail``) instead of
/// passing unenforced.
///
/// ```swift
/// @Test(.simulatedDevices, .requiresSandbox(.fail)) func theShareExtensionCannotReadTheAppsDocuments() async throws { ... }
/// ```
public struct SandboxRequirementTrait: TestTrait, SuiteTrait, TestScoping {
    /// What happens where the sandbox is not enforced.
    public let requirement: SandboxRequirement

    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        if let reason = SandboxRequirement.shortfall {
            switch requirement {
            case .skip: try Test.cancel(Comment(rawValue: reason))
            case .fail:
                Issue.record(Comment(rawValue: reason + ": failed as .requiresSandbox(.fail) asks"))
                return
            }
        }
        try await function()
    }
}

extension Trait where Self == SandboxRequirementTrait {
    /// Requires the kernel-enforced sandbox: see ``SandboxRequirementTrait``.
    public static func requiresSandbox(_ requirement: SandboxRequirement = .skip) -> SandboxRequirementTrait {
        SandboxRequirementTrait(requirement: requirement)
    }
}
#endif

#if canImport(XCTest)
import XCTest

extension XCTestCase {
    /// Requires the kernel-enforced sandbox (the XCTest form of `.requiresSandbox`):
    /// where Landlock is unavailable it throws `XCTSkip` (``SandboxRequirement/skip``)
    /// or records a failure and throws (``SandboxRequirement/fail``). Call it first.
    ///
    /// ```swift
    /// func testTheExtensionCannotReadTheAppsDocuments() throws {
    ///     try requireSandbox(.fail)
    ///     ...
    /// }
    /// ```
    public func requireSandbox(_ requirement: SandboxRequirement = .skip, file: StaticString = #filePath, line: UInt = #line) throws {
        guard let reason = SandboxRequirement.shortfall else { return }
        switch requirement {
        case .skip:
            throw XCTSkip(reason, file: file, line: line)
        case .fail:
            XCTFail(reason, file: file, line: line)
            throw SandboxUnavailable(reason: reason)
        }
    }
}

/// Thrown by `requireSandbox(.fail)` after it recorded the failure, to end the test.
public struct SandboxUnavailable: Error, CustomStringConvertible, Sendable {
    /// Why.
    public let reason: String
    public var description: String { reason }
}
#endif
