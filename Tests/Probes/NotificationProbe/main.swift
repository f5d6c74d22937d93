// Linux only (Package.swift declares this target there): on Darwin these names are
// Apple's own.
#if !canImport(Darwin)
import Foundation
import UserNotifications

// An app's (or an extension's) calls of its notification center, as iOS code makes
// them, for UserNotificationsTests:
//   NotificationProbe add <id> <title> [badge]   asks authorization, adds a request delivered at once
//   NotificationProbe delivered                   prints the delivered notifications: `<id> <title>`
//   NotificationProbe remove <id>                 removes a delivered notification
//   NotificationProbe badge <n>                   sets the badge
//   NotificationProbe forge <app bundle id>       a hostile target: writes the app's records itself
let arguments = Array(CommandLine.arguments.dropFirst())
let center = UNUserNotificationCenter.current()

/// Waits for a completion handler (generous: the machine may be loaded).
func waitFor(_ what: String, _ body: (@escaping @Sendable () -> Void) -> Void) {
    let done = DispatchSemaphore(value: 0)
    body { done.signal() }
    if done.wait(timeout: .now() + 120) == .timedOut {
        print("timeout: \(what)")
        exit(1)
    }
}

func printDelivered() {
    waitFor("getDeliveredNotifications") { done in
        center.getDeliveredNotifications { notifications in
            for notification in notifications { print("delivered: \(notification.request.identifier) \(notification.request.content.title)") }
            done()
        }
    }
}

switch arguments.first {
case "add" where arguments.count >= 3:
    waitFor("requestAuthorization") { done in
        center.requestAuthorization(options: [.alert, .sound, .badge]) { granted, error in
            print("granted: \(granted)\(error.map { " \($0)" } ?? "")")
            done()
        }
    }
    let content = UNMutableNotificationContent()
    content.title = arguments[2]
    content.body = "from \(ProcessInfo.processInfo.processIdentifier)"
    content.userInfo = ["sender": "probe", "count": 1]
    if arguments.count > 3, let badge = Int(arguments[3]) { content.badge = NSNumber(value: badge) }
    content.sound = .default
    let request = UNNotificationRequest(identifier: arguments[1], content: content, trigger: nil)
    waitFor("add") { done in
        center.add(request) { error in
            print(error.map { "error: \($0)" } ?? "added")
            done()
        }
    }
    printDelivered()
case "delivered":
    printDelivered()
case "remove" where arguments.count == 2:
    center.removeDeliveredNotifications(withIdentifiers: [arguments[1]])
    printDelivered()
case "badge" where arguments.count == 2:
    waitFor("setBadgeCount") { done in
        center.setBadgeCount(Int(arguments[1]) ?? 0) { error in
            print(error.map { "error: \($0)" } ?? "badge set")
            done()
        }
    }
case "forge" where arguments.count == 2:
    // Goes around the library: writes the victim's records where the device keeps them.
    let root = ProcessInfo.processInfo.environment["APP_GROUP_CONTAINERS_ROOT"] ?? ""
    let directory = root + "/.device/usernotifications"
    let file = directory + "/" + arguments[1].utf8.map { String(format: "%02x", $0) }.joined() + ".json"
    let forged = #"{"status":2,"options":7,"badge":99,"delivered":[],"pending":[],"categories":[]}"#
    do {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(forged.utf8).write(to: URL(fileURLWithPath: file))
        print("wrote: \(file)")
    } catch {
        print("refused: write \(file)")
    }
    // Then asks in the victim's name: a field the device does not read.
    let content = UNMutableNotificationContent()
    content.title = "forged"
    waitFor("requestAuthorization") { done in center.requestAuthorization(options: [.alert]) { _, _ in done() } }
    waitFor("add") { done in
        center.add(UNNotificationRequest(identifier: "forged", content: content, trigger: nil)) { error in
            print(error.map { "error: \($0)" } ?? "added")
            done()
        }
    }
default:
    FileHandle.standardError.write(Data("usage: NotificationProbe add <id> <title> [badge] | delivered | remove <id> | badge <n> | forge <bundle>\n".utf8))
    exit(64)
}
#endif
