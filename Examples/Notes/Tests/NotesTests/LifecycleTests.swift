import AppGroupTesting
import Foundation
import NotesShared
import Testing

/// The classic crash of apps that share data with extensions: iOS suspends the
/// widget in the middle of a transaction on the shared database and kills it with
/// 0xdead10cc. The fixed code takes background time first and is suspended only
/// once the transaction has ended.
@Suite(.simulatedDevices, .enabled(if: NotesTargets.canRun, Comment(rawValue: NotesTargets.whyNot)))
struct LifecycleTests {
    let notes: NotesTargets

    init() throws {
        notes = try NotesTargets()
    }

    @Test func aWidgetSuspendedInsideATransactionIsKilledWith0xdead10cc() async throws {
        try await SimulatedDevice.with(name: "Notes") { device in
            let widget = try device.launch(built: "NotesWidget", ["refresh", "30"], as: notes.widget)
            try await widget.requireLine("in transaction", timeout: 60)
            try await device.moveToBackground(widget)
            guard case .killed(let report) = try await device.suspend(widget) else {
                Issue.record("the widget was suspended inside its transaction and lived")
                return
            }
            #expect(report.reason.code == "0xdead10cc")
            #expect(report.target == notes.widget)
            #expect(device.terminations == [report])
        }
    }

    @Test func theWidgetThatTakesBackgroundTimeFirstIsSuspendedSafely() async throws {
        try await SimulatedDevice.with(name: "Notes") { device in
            let widget = try device.launch(built: "NotesWidget", ["refresh", "--background-time", "1"], as: notes.widget)
            try await widget.requireLine("in transaction", timeout: 60)
            try await device.moveToBackground(widget)
            // The device waits for the background activity, so the transaction ends first.
            #expect(try await device.suspend(widget) == .suspended)
            try await widget.requireLine("committed", timeout: 30)
            #expect(device.terminations.isEmpty)
            try await device.jetsam(widget)
        }
    }
}
