import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import TestSupport
import Testing

/// A lock the rule let a suspended target keep
/// blocks everyone else, as on iOS, and the waiter's timeout names the suspended holder.
@Suite(.tags(.multiprocess)) struct SuspendedHolderTests {
    @Test func aSuspendedHoldersLockBlocksAndTheTimeoutNamesIt() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        // A file in the device's scratch, outside every container: its coordination
        // lock is outside the App Group containers, so suspension does not kill the holder.
        let file = fixture.device.scratch.appendingPathComponent("handoff.txt")
        let widget = try await fixture.probe(["coordinated-write", "--file", file.path], as: fixture.notes.widget)
        try await widget.requireLine("inside", timeout: 60)
        try await fixture.device.moveToBackground(widget)
        #expect(try await fixture.device.suspend(widget) == .suspended)

        let error = #expect(throws: AppGroupError.self) {
            try FileCoordinator(timeout: 0.5).coordinate(writingItemAt: file) { _ in
                Issue.record("wrote while a suspended target holds the write coordination")
            }
        }
        let message = error?.description ?? ""
        #expect(message.contains("process \(widget.processIdentifier)"), "\(message)")
        #expect(message.contains("suspended"), "\(message)")
        #expect(message.contains(fixture.notes.widget.entitlements.applicationIdentifier), "\(message)")

        // Once the holder is gone, the lock is free.
        try await fixture.device.jetsam(widget)
        try FileCoordinator(timeout: 30).coordinate(writingItemAt: file) { _ in }
    }
}
