#if canImport(Testing)
import AppGroupContainer
import Testing

/// Silences kinds of the package's diagnostics for one test or suite: the lines a
/// test provokes on purpose (a target that never joined the group) stay out of a
/// green run's output, while every other test's still print. Scoped to the test's
/// task, the tasks it starts and the processes its devices start
/// (`Diagnostics.silencing(_:_:)`).
///
/// ```swift
/// @Test(.simulatedDevices, .silencingDiagnostics(.notEntitled, .privateSuite))
/// func aTargetWithoutTheGroupGetsNoContainer() throws { ... }
/// ```
public struct SilencedDiagnosticsTrait: TestTrait, SuiteTrait, TestScoping {
    /// The kinds silenced.
    public let kinds: Set<Diagnostics.Kind>

    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await Diagnostics.silencing(kinds) { try await function() }
    }
}

extension Trait where Self == SilencedDiagnosticsTrait {
    /// Silences these kinds of diagnostic for the test or suite: see ``SilencedDiagnosticsTrait``.
    public static func silencingDiagnostics(_ kinds: Diagnostics.Kind...) -> SilencedDiagnosticsTrait {
        SilencedDiagnosticsTrait(kinds: Set(kinds))
    }
}
#endif

#if canImport(XCTest)
import XCTest

extension XCTestCase {
    /// Runs `body` with these kinds of the package's diagnostics silenced: for the
    /// test's thread and the processes its devices start from `body`, not for other
    /// tests (`Diagnostics.silencing(_:_:)`).
    ///
    /// ```swift
    /// try silencingDiagnostics(.notEntitled) {
    ///     XCTAssertNil(try notes.shareExtensionWithoutGroup.run(on: device) { try? NotesGroup.containerURL() })
    /// }
    /// ```
    public func silencingDiagnostics<T>(_ kinds: Diagnostics.Kind..., body: () throws -> T) rethrows -> T {
        try Diagnostics.silencing(Set(kinds), body)
    }
}
#endif
