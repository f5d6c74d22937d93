// Linux only (Package.swift declares this target there).
#if !canImport(Darwin)
import Foundation
import UserNotifications

// A notification service extension written as iOS code writes one (the shape of
// Xcode's template and of messengers' extensions: keep the handler and a best
// attempt, fill it in from data the app left in the App Group, deliver it, and
// deliver the best attempt when time runs out). The push's custom key
// "probe-behaviour" picks a mistake for the tests: "never" (the handler is never
// called, nor at expiry), "twice" (called twice), "late" (only at expiry), "hog"
// (decodes into far more memory than an extension may use, as large images do).
final class NotificationService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = (request.content.mutableCopy() as? UNMutableNotificationContent)
        guard let bestAttemptContent else { return }
        let behaviour = request.content.userInfo["probe-behaviour"] as? String ?? ""
        bestAttemptContent.title = "[best attempt] \(bestAttemptContent.title)"
        if behaviour == "never" || behaviour == "late" { return }
        if behaviour == "hog" {
            var pages = [UInt8](repeating: 1, count: 200 << 20)
            for index in stride(from: 0, to: pages.count, by: 4096) { pages[index] = 2 }
            Thread.sleep(forTimeInterval: 60)
            print(pages[4096])
        }

        // The message the app left in the group for this push (the push carries only its id).
        if let group = request.content.userInfo["group"] as? String, let id = request.content.userInfo["message-id"] as? String,
           let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group),
           let text = try? String(contentsOf: container.appendingPathComponent("messages/\(id).txt"), encoding: .utf8) {
            bestAttemptContent.title = "Alice"
            bestAttemptContent.body = text
            bestAttemptContent.threadIdentifier = "chat-alice"
            bestAttemptContent.badge = 1
            let image = FileManager.default.temporaryDirectory.appendingPathComponent("avatar-\(id).png")
            if (try? Data([0x89, 0x50, 0x4e, 0x47]).write(to: image)) != nil,
               let attachment = try? UNNotificationAttachment(identifier: "avatar", url: image, options: nil) {
                bestAttemptContent.attachments = [attachment]
            }
        }
        contentHandler(bestAttemptContent)
        if behaviour == "twice" {
            let again = UNMutableNotificationContent()
            again.title = "second call"
            contentHandler(again)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        // Called just before the extension is terminated: deliver the best attempt.
        let behaviour = bestAttemptContent?.userInfo["probe-behaviour"] as? String ?? ""
        if behaviour == "never" { return }
        if let contentHandler, let bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }
}
#endif
