import AppGroupTesting
import DeviceTestSupport
import Foundation
import NotificationDelivery
import Testing
import TestSupport
import UserNotifications

/// Pushes to an app with a notification service extension (NotificationServiceProbe,
/// a sandboxed process of its own): what its content handler hands is delivered;
/// a handler called twice or never is a finding, and the original (or the best
/// attempt handed at expiry) is delivered, as iOS does.
@Suite("Pushes and the notification service extension", .tags(.multiprocess))
struct PushTests {
    static func payload(_ behaviour: String = "", mutable: Bool = true) -> [String: Any] {
        ["aps": ["alert": ["title": "New message", "body": "(encrypted)"], "mutable-content": mutable ? 1 : 0, "sound": "default"],
         "group": NotesApps.group, "message-id": "m1", "probe-behaviour": behaviour]
    }

    static func device(_ device: SimulatedDevice, timeLimit: TimeInterval = 30) throws -> NotesApps {
        let notes = try NotesApps()
        try device.installNotificationServiceExtension(notes.service, built: "NotificationServiceProbe")
        device.notificationServiceTimeLimit = timeLimit
        try device.setNotificationAuthorization(.authorized, for: notes.app)
        // The app left the message in the group; the push names it only.
        let messages = try device.containerLocation(for: NotesApps.group).appendingPathComponent("messages")
        try FileManager.default.createDirectory(at: messages, withIntermediateDirectories: true)
        try Data("Lunch at noon?".utf8).write(to: messages.appendingPathComponent("m1.txt"))
        return notes
    }

    @Test func theExtensionsContentIsDelivered() async throws {
        try await SimulatedDevice.with { device in
            let notes = try Self.device(device)
            let outcome = try await device.push(Self.payload(), to: notes.app)
            #expect(outcome.extensionRan && outcome.findings.isEmpty, "\(outcome) \(String(describing: outcome.process))")
            #expect(outcome.delivered?.title == "Alice" && outcome.delivered?.body == "Lunch at noon?", "\(outcome)")
            let delivered = try device.deliveredNotifications(of: notes.app)
            #expect(delivered.map(\.request.content.body) == ["Lunch at noon?"])
            #expect(delivered.first?.request.content.attachments.map(\.identifier) == ["avatar"])
            #expect(delivered.first?.request.content.userInfo["message-id"] as? String == "m1")
            #expect(delivered.first?.request.trigger is UNPushNotificationTrigger)
            #expect(try device.notificationBadgeCount(of: notes.app) == 1)
        }
    }

    @Test func withoutMutableContentNoExtensionRuns() async throws {
        try await SimulatedDevice.with { device in
            let notes = try Self.device(device)
            let outcome = try await device.push(Self.payload(mutable: false), to: notes.app)
            #expect(!outcome.extensionRan && outcome.delivered?.body == "(encrypted)", "\(outcome)")
        }
    }

    @Test func aHandlerNeverCalledDeliversTheOriginalAfterTheTimeLimit() async throws {
        try await SimulatedDevice.with { device in
            let notes = try Self.device(device, timeLimit: 1)
            let outcome = try await device.push(Self.payload("never"), to: notes.app)
            #expect(outcome.findings == [.contentHandlerNeverCalled(timeLimit: 1)], "\(outcome)")
            #expect(outcome.delivered?.title == "New message" && outcome.delivered?.body == "(encrypted)", "\(outcome)")
        }
    }

    @Test func theBestAttemptHandedAtExpiryIsDelivered() async throws {
        try await SimulatedDevice.with { device in
            let notes = try Self.device(device, timeLimit: 1)
            let outcome = try await device.push(Self.payload("late"), to: notes.app)
            #expect(outcome.findings.isEmpty, "\(outcome)")
            #expect(outcome.delivered?.title == "[best attempt] New message", "\(outcome)")
        }
    }

    @Test func aHandlerCalledTwiceIsAFinding() async throws {
        try await SimulatedDevice.with { device in
            let notes = try Self.device(device)
            let outcome = try await device.push(Self.payload("twice"), to: notes.app)
            #expect(outcome.findings == [.contentHandlerCalledMoreThanOnce(times: 2)], "\(outcome)")
            #expect(outcome.delivered?.body == "Lunch at noon?", "the first content is delivered: \(outcome)")
        }
    }

    @Test func anExtensionOverItsMemoryLimitIsEndedAndTheOriginalDelivered() async throws {
        try await SimulatedDevice.with { device in
            let notes = try Self.device(device)
            let outcome = try await device.push(Self.payload("hog"), to: notes.app)
            #expect(outcome.findings.count == 1, "\(outcome)")
            guard case .extensionEnded(_, let signal)? = outcome.findings.first else {
                Issue.record("the extension was not ended by the device's memory limit: \(outcome)")
                return
            }
            #expect(signal == SIGKILL, "\(outcome)")
            #expect(outcome.delivered?.body == "(encrypted)", "\(outcome)")
        }
    }

    @Test(.tags(.hostile)) func aMalformedPayloadIsATypedError() async throws {
        try await SimulatedDevice.with { device in
            let notes = try Self.device(device)
            await #expect(throws: (any Error).self) { _ = try await device.push(["no-aps": 1], to: notes.app) }
            let huge = String(repeating: "x", count: 5_000)
            await #expect(throws: (any Error).self) { _ = try await device.push(["aps": ["alert": huge]], to: notes.app) }
            #expect(try device.deliveredNotifications(of: notes.app).isEmpty)
        }
    }
}
