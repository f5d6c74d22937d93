import AppGroupTesting
import DeviceTestSupport
import Foundation
import NotificationDelivery
import Testing
import TestSupport
import UserNotifications

/// A notes app and its notification service extension, and another app.
struct NotesApps {
    static let group = "group.com.example.notes"
    let app: SimulatedTarget
    let service: SimulatedTarget
    let other: SimulatedTarget

    init() throws {
        app = try SimulatedTarget(name: "Notes", kind: .app, teamIdentifier: "ABCDE12345",
                                  bundleIdentifier: "com.example.notes", applicationGroups: [Self.group])
        service = try SimulatedTarget(name: "NotesService", kind: .notificationExtension, teamIdentifier: "ABCDE12345",
                                      bundleIdentifier: "com.example.notes.service", applicationGroups: [Self.group])
        other = try SimulatedTarget(name: "Other", kind: .app, teamIdentifier: "FGHIJ67890", bundleIdentifier: "com.example.other")
    }
}

/// The center of a target a device launched: its calls go to the device over the
/// target's channel and land in its app's records, which only the device writes.
@Suite("UNUserNotificationCenter on a simulated device", .tags(.multiprocess))
struct DeviceCenterTests {
    @Test func anAppsNotificationReachesTheDeviceAndItsExtensionSharesTheCenter() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesApps()
            let added = try await device.run(built: "NotificationProbe", ["add", "n1", "Hello", "3"], as: notes.app).requireSuccess()
            #expect(added.outputLines.contains("granted: true") && added.outputLines.contains("added"), "\(added)")
            #expect(added.outputLines.contains("delivered: n1 Hello"), "\(added)")

            let fromService = try await device.run(built: "NotificationProbe", ["add", "n2", "From the extension"], as: notes.service).requireSuccess()
            #expect(fromService.outputLines.contains("delivered: n1 Hello"), "the extension reads its app's center: \(fromService)")

            let delivered = try device.deliveredNotifications(of: notes.app)
            #expect(delivered.map(\.request.identifier) == ["n1", "n2"])
            #expect(delivered.first?.request.content.userInfo["sender"] as? String == "probe")
            #expect(try device.notificationBadgeCount(of: notes.app) == 3)
            #expect(try device.deliveredNotifications(of: notes.other).isEmpty)

            let removed = try await device.run(built: "NotificationProbe", ["remove", "n1"], as: notes.app).requireSuccess()
            #expect(!removed.outputLines.contains { $0.hasPrefix("delivered: n1") }, "\(removed)")
            #expect(try device.deliveredNotifications(of: notes.app).map(\.request.identifier) == ["n2"])
        }
    }

    @Test func theAuthorizationIsTheTests() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesApps()
            try device.setNotificationAuthorization(.denied, for: notes.app)
            let outcome = try await device.run(built: "NotificationProbe", ["add", "n1", "Hello"], as: notes.app).requireSuccess()
            #expect(outcome.outputLines.contains("granted: false"), "\(outcome)")
            #expect(outcome.outputLines.contains { $0.hasPrefix("error: UNError 1 (notificationsNotAllowed)") }, "\(outcome)")
            #expect(try device.deliveredNotifications(of: notes.app).isEmpty)
        }
    }

    @Test func aBadgeSetByTheAppIsTheDevices() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesApps()
            let outcome = try await device.run(built: "NotificationProbe", ["badge", "12"], as: notes.app).requireSuccess()
            #expect(outcome.outputLines == ["badge set"], "\(outcome)")
            #expect(try device.notificationBadgeCount(of: notes.app) == 12)
            #expect(try device.notificationBadgeCount(of: notes.other) == 0)
        }
    }
}

/// Another app's target tries to put a notification in the notes app's center:
/// it writes the records itself (the kernel refuses: the device's directory is
/// outside every sandbox), then calls its center (the device files the call under
/// the caller's own app, named by the channel).
@Suite("A target cannot forge another app's notifications", .tags(.hostile, .multiprocess))
struct HostileNotificationTargetTests {
    @Test func aTargetCannotWriteOrCallIntoAnotherAppsCenter() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesApps()
            let outcome = try await device.run(built: "NotificationProbe", ["forge", notes.app.bundleIdentifier], as: notes.other).requireSuccess()
            #expect(outcome.outputLines.contains { $0.hasPrefix("refused: write ") }, "\(outcome)")
            #expect(!outcome.outputLines.contains { $0.hasPrefix("wrote: ") }, "\(outcome)")
            #expect(try device.deliveredNotifications(of: notes.app).isEmpty)
            #expect(try device.notificationBadgeCount(of: notes.app) == 0)
            #expect(try device.deliveredNotifications(of: notes.other).map(\.request.content.title) == ["forged"],
                    "the call landed in the caller's own app's center")
        }
    }
}
