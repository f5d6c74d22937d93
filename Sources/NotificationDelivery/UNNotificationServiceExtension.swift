import Foundation

/// The principal class of a notification service extension, as Apple's
/// `UNNotificationServiceExtension`: subclass it and override both methods.
open class UNNotificationServiceExtension: NSObject {
    public override init() { super.init() }

    /// Changes `request`'s content and hands what to deliver to `contentHandler`
    /// (once). The default delivers the content unchanged.
    open func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        contentHandler(request.content)
    }

    /// Called when the time to call the content handler is about to run out:
    /// the last chance to hand the best attempt; otherwise the original content is delivered.
    open func serviceExtensionTimeWillExpire() {}
}
