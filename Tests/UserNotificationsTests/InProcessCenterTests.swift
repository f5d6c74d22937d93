import Foundation
import NotificationDelivery
import Testing
import UserNotifications

/// The center of a process without a channel (this test process): its own records,
/// in memory. Serialized: the process has one center, as an app has.
@Suite("UNUserNotificationCenter in a process without a device", .serialized)
struct InProcessCenterTests {
    let center = UNUserNotificationCenter.current()

    func content(_ title: String, badge: Int? = nil) -> UNMutableNotificationContent {
        let content = UNMutableNotificationContent()
        content.title = title
        content.subtitle = "sub"
        content.body = "body of \(title)"
        content.badge = badge.map { NSNumber(value: $0) }
        content.sound = UNNotificationSound(named: UNNotificationSoundName("ping.caf"))
        content.userInfo = ["message-id": "m-\(title)", "count": 3]
        content.threadIdentifier = "thread"
        content.categoryIdentifier = "MESSAGE"
        return content
    }

    @Test func aRequestWithoutTriggerIsDeliveredAndReplacedByItsIdentifier() async throws {
        #expect(try await center.requestAuthorization(options: [.alert, .badge, .sound]))
        let id = "in-process-\(UUID().uuidString)"
        try await center.add(UNNotificationRequest(identifier: id, content: content("first", badge: 4), trigger: nil))
        try await center.add(UNNotificationRequest(identifier: id, content: content("second"), trigger: nil))
        let mine = await center.deliveredNotifications().filter { $0.request.identifier == id }
        #expect(mine.count == 1)
        let delivered = try #require(mine.first)
        #expect(delivered.request.content.title == "second")
        #expect(delivered.request.content.userInfo["message-id"] as? String == "m-second")
        #expect(delivered.request.content.sound == UNNotificationSound(named: UNNotificationSoundName("ping.caf")))
        #expect(delivered.request.content.threadIdentifier == "thread")

        center.removeDeliveredNotifications(withIdentifiers: [id])
        #expect(await center.deliveredNotifications().allSatisfy { $0.request.identifier != id })
        let settings = await center.notificationSettings()
        #expect(settings.authorizationStatus == .authorized && settings.badgeSetting == .enabled)
    }

    @Test func aTimeIntervalRequestWaitsAsPendingUntilRemoved() async throws {
        _ = try await center.requestAuthorization(options: [.alert])
        let id = "pending-\(UUID().uuidString)"
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 3_600, repeats: false)
        try await center.add(UNNotificationRequest(identifier: id, content: content("later"), trigger: trigger))
        let pending = await center.pendingNotificationRequests().filter { $0.identifier == id }
        #expect(pending.count == 1)
        #expect((pending.first?.trigger as? UNTimeIntervalNotificationTrigger)?.timeInterval == 3_600)
        #expect(await center.deliveredNotifications().allSatisfy { $0.request.identifier != id })
        center.removePendingNotificationRequests(withIdentifiers: [id])
        #expect(await center.pendingNotificationRequests().allSatisfy { $0.identifier != id })
    }

    @Test func badgeAndCategoriesAreKept() async throws {
        try await center.setBadgeCount(7)
        let reply = UNNotificationAction(identifier: "REPLY", title: "Reply", options: [.foreground])
        let category = UNNotificationCategory(identifier: "MESSAGE", actions: [reply], intentIdentifiers: [], options: [.customDismissAction])
        center.setNotificationCategories([category])
        #expect(await center.notificationCategories() == [category])
        try await center.setBadgeCount(0)
    }

    @Test func aUserInfoThatIsNotAPropertyListIsAnError() async throws {
        let content = content("odd")
        content.userInfo = ["date-formatter": DateFormatter()]
        await #expect(throws: UNError.self) {
            try await center.add(UNNotificationRequest(identifier: "odd", content: content, trigger: nil))
        }
    }

    @Test func contentCopiesAreIndependentAndMutable() throws {
        let original = content("original")
        let frozen = original.copy() as? UNNotificationContent
        let copy = try #require(frozen?.mutableCopy() as? UNMutableNotificationContent)
        copy.title = "changed"
        copy.body = "decrypted"
        #expect(frozen?.title == "original" && original.title == "original")
        #expect(copy.title == "changed" && copy.subtitle == "sub" && copy.userInfo["count"] as? Int == 3)
    }

    @Test func anAttachmentNeedsAnExistingFile() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString).png")
        #expect(throws: UNError.self) { _ = try UNNotificationAttachment(identifier: "image", url: missing, options: nil) }
        try Data([0x89, 0x50]).write(to: missing)
        defer { try? FileManager.default.removeItem(at: missing) }
        let attachment = try UNNotificationAttachment(identifier: "", url: missing)
        #expect(!attachment.identifier.isEmpty && attachment.type == "public.png" && attachment.url == missing)
    }
}
