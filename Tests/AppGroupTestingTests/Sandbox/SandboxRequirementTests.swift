import AppGroupTesting
import Foundation
import Testing
import XCTest

/// What `.requiresSandbox(.fail)` does where the kernel cannot enforce: the test's
/// body does not run and the test fails, saying why. (The `.skip` form cancels the
/// test it runs in, so it is seen in the XCTest form below.)
@Suite struct SandboxRequirementTests {
    @Test func requiringTheSandboxFailsWithoutIt() async throws {
        let test = try #require(Test.current)
        let ran = RanFlag()
        try await withKnownIssue("the trait fails the test it scopes, saying why") {
            try await KernelSandbox.$availabilityOverride.withValue(.unavailable(reason: "Landlock is unavailable (played)")) {
                try await SandboxRequirementTrait.requiresSandbox(.fail).provideScope(for: test, testCase: nil) { ran.set() }
            }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("requires the simulated targets' sandbox, which is not enforced: Landlock is unavailable (played)") }
        }
        #expect(!ran.value, "the body ran without the sandbox")
        // With the sandbox, the body runs.
        try await KernelSandbox.$availabilityOverride.withValue(.available(abi: 7)) {
            try await SandboxRequirementTrait.requiresSandbox(.fail).provideScope(for: test, testCase: nil) { ran.set() }
        }
        #expect(ran.value)
    }
}

final class RanFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var ran = false
    func set() { lock.withLock { ran = true } }
    var value: Bool { lock.withLock { ran } }
}

final class SandboxRequirementXCTests: XCTestCase {
    func testRequireSandboxSkipsWithoutIt() throws {
        try KernelSandbox.$availabilityOverride.withValue(.unavailable(reason: "Landlock is unavailable (played)")) {
            XCTAssertThrowsError(try requireSandbox(.skip)) { error in
                XCTAssertTrue(error is XCTSkip, "\(error)")
                XCTAssertTrue("\(error)".contains("Landlock is unavailable (played)"), "\(error)")
            }
        }
        try KernelSandbox.$availabilityOverride.withValue(.available(abi: 7)) {
            XCTAssertNoThrow(try requireSandbox(.fail))
        }
    }
}
