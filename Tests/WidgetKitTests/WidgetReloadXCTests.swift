import AppGroupTesting
import Foundation
import WidgetKit
import WidgetReloads
import XCTest

/// The classic bug and its fix in XCTest's form: the app's process saves to the
/// group; only when it reloads does the widget's process show the new note.
final class WidgetReloadXCTests: XCTestCase {
    func testTheWidgetShowsNewDataOnlyAfterTheAppReloads() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            try device.setForegroundApp(notes.app)
            try await notes.save("old", reload: true)
            try await device.processWidgetReloads()
            XCTAssertEqual(try notes.shownNotes(), ["note: old"])

            try await notes.save("new", reload: false)
            try await device.processWidgetReloads()
            XCTAssertEqual(try notes.shownNotes(), ["note: old"], "the app forgot to reload: the widget is stale")

            try await notes.save("new", reload: true)
            let done = try await device.processWidgetReloads()
            XCTAssertEqual(done.map(\.outcome), [.ran])
            XCTAssertEqual(try notes.shownNotes(), ["note: new"])
        }
    }
}
