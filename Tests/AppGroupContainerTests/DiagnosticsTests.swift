import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// The library writes to standard error only through a
/// diagnostics handler that a host can replace.
@Suite("Diagnostics handler", .dedicatedThreads)
struct DiagnosticsTests {
    /// A child refused a container, with the identity from its environment.
    func refusedResolve(_ dir: URL, diagnostics: String?) throws -> LaunchedProcess {
        let identity = try shareExtension()
        let environment = identity.environment.merging([ContainerResolver.rootEnvironmentKey: dir.appendingPathComponent("root").path]) { $1 }
        let probe = try Probe.start(["resolve", "--group", "group.ai.systenics.other"] + (diagnostics.map { ["--diagnostics", $0] } ?? []), environment: environment)
        #expect(probe.wait(timeout: 30).status == 2)
        return probe
    }

    @Test("a process that replaces the handler gets every line there, and nothing reaches its standard error", .tags(.multiprocess))
    func replacedHandlerReceivesWhatStandardErrorGotBefore() throws {
        try withTemporaryDirectory { dir in
            let byDefault = try refusedResolve(dir, diagnostics: nil)
            #expect(byDefault.standardError.contains("containerURL(forSecurityApplicationGroupIdentifier: \"group.ai.systenics.other\") returned nil"))

            let routed = try refusedResolve(dir, diagnostics: "stdout")
            #expect(routed.standardError.isEmpty, "the library wrote to stderr past the handler: \(routed.standardError)")
            let line = try #require(routed.outputLines.first { $0.hasPrefix("diagnostic: ") }, "\(routed.standardOutput)")
            #expect(line.contains("containerURL(forSecurityApplicationGroupIdentifier: \"group.ai.systenics.other\") returned nil"))
            #expect(line.contains("not entitled"))

            let silenced = try refusedResolve(dir, diagnostics: "none")
            #expect(silenced.standardError.isEmpty)
            #expect(silenced.outputLines == ["nil group.ai.systenics.other"])
        }
    }

    @Test("the handler can be read and replaced from many threads at once while warnings flow")
    func handlerIsThreadSafe() async throws {
        let original = Diagnostics.handler
        defer { Diagnostics.handler = original }
        let resolver = ContainerResolver(root: URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)"), entitlements: try shareExtension())
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<8 {
                group.addTask {
                    for _ in 0..<200 {
                        if i.isMultiple(of: 2) {
                            Diagnostics.handler = { _ in }
                        } else {
                            _ = resolver.containerURL(forSecurityApplicationGroupIdentifier: "group.ai.systenics.other")
                        }
                    }
                }
            }
        }
        #expect(Diagnostics.handler != nil)
    }
}
