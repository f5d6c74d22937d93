import AppGroupTesting
import DeviceTestSupport
import Foundation
import TestSupport
import Testing

/// A target whose footprint passes its limit is killed as jetsam
/// kills it, and the kill is recorded with the limit and the footprint.
@Suite(.tags(.multiprocess, .killed)) struct MemoryLimitTests {
    @Test(arguments: [MemoryEnforcement.samplingWatchdog, .automatic])
    func aWidgetOverItsLimitIsKilledWithTheLimitAndFootprint(enforcement: MemoryEnforcement) async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        var settings = fixture.device.lifecycleSettings
        settings.memoryEnforcement = enforcement
        fixture.device.lifecycleSettings = settings
        #expect(settings.memoryLimit(for: fixture.notes.widget) == 30 << 20)
        let widget = try fixture.device.launch(built: "LifecycleProbe", ["allocate", "--megabytes", "80"], as: fixture.notes.widget)
        let report = try #require(try await fixture.device.termination(of: widget, timeout: 120))
        guard case .memoryLimit(let limit, let footprint) = report.reason else {
            Issue.record("the widget ended otherwise: \(report)")
            return
        }
        #expect(limit == 30 << 20)
        #expect(footprint > limit)
        #expect(report.reason.code == "jetsam")
        #expect(!widget.outputLines.contains("allocated"))
    }

    @Test func aLimitSetForOneTargetWinsOverItsKinds() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        var settings = fixture.device.lifecycleSettings
        settings.memoryEnforcement = .samplingWatchdog
        settings.memoryLimitsByBundleIdentifier[fixture.notes.widget.bundleIdentifier] = 400 << 20
        fixture.device.lifecycleSettings = settings
        let widget = try fixture.device.launch(built: "LifecycleProbe", ["allocate", "--megabytes", "60"], as: fixture.notes.widget)
        try await widget.requireLine("allocated", timeout: 120)
        #expect(try fixture.device.lifecycleState(of: widget) == .foreground)
        let report = try await fixture.device.jetsam(widget)
        #expect(report.reason == .jetsam)
    }
}
