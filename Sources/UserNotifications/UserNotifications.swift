// The module `import UserNotifications` resolves to on Linux, where Apple's
// UserNotifications does not exist (Package.swift declares it on Linux only). It
// exposes Apple's names only, each re-exported from NotificationDelivery, whose
// own API (the device's records, NotificationStoreError) stays under
// `import NotificationDelivery`.
@_exported import Foundation
@_exported import struct NotificationDelivery.UNAuthorizationOptions
@_exported import enum NotificationDelivery.UNAuthorizationStatus
@_exported import enum NotificationDelivery.UNAlertStyle
@_exported import struct NotificationDelivery.UNError
@_exported import class NotificationDelivery.UNCalendarNotificationTrigger
@_exported import class NotificationDelivery.UNMutableNotificationContent
@_exported import class NotificationDelivery.UNNotification
@_exported import class NotificationDelivery.UNNotificationAction
@_exported import struct NotificationDelivery.UNNotificationActionOptions
@_exported import class NotificationDelivery.UNNotificationAttachment
@_exported import class NotificationDelivery.UNNotificationCategory
@_exported import struct NotificationDelivery.UNNotificationCategoryOptions
@_exported import class NotificationDelivery.UNNotificationContent
@_exported import enum NotificationDelivery.UNNotificationInterruptionLevel
@_exported import struct NotificationDelivery.UNNotificationPresentationOptions
@_exported import class NotificationDelivery.UNNotificationRequest
@_exported import class NotificationDelivery.UNNotificationResponse
@_exported import class NotificationDelivery.UNNotificationServiceExtension
@_exported import enum NotificationDelivery.UNNotificationSetting
@_exported import class NotificationDelivery.UNNotificationSettings
@_exported import class NotificationDelivery.UNNotificationSound
@_exported import struct NotificationDelivery.UNNotificationSoundName
@_exported import class NotificationDelivery.UNNotificationTrigger
@_exported import class NotificationDelivery.UNPushNotificationTrigger
@_exported import class NotificationDelivery.UNTimeIntervalNotificationTrigger
@_exported import class NotificationDelivery.UNUserNotificationCenter
@_exported import protocol NotificationDelivery.UNUserNotificationCenterDelegate
@_exported import let NotificationDelivery.UNNotificationDefaultActionIdentifier
@_exported import let NotificationDelivery.UNNotificationDismissActionIdentifier
@_exported import let NotificationDelivery.UNNotificationAttachmentOptionsTypeHintKey
@_exported import let NotificationDelivery.UNNotificationAttachmentOptionsThumbnailHiddenKey
