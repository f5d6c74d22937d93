import AppGroupSystem
import Foundation
import AppGroupContainer

#if !canImport(Darwin)
// Foundation's names that Linux lacks, for the lifecycle a simulated device drives
// (AppGroupTesting's "The lifecycle" article): with them, an extension's code that
// takes background time before a shared write compiles with its import lines changed only.
extension ProcessInfo {
    /// Performs `block` as background work the system must let finish before it
    /// suspends the process, as Apple's `performExpiringActivity(withReason:using:)`.
    ///
    /// `block` runs on a thread of its own with `false`. In a target launched by a
    /// simulated device, the device does not suspend the process while it runs;
    /// when the device's background time limit passes first, `block` is called
    /// again, on another thread, with `true` (stop and return quickly), and the
    /// device suspends the process only after that call returned, as iOS does.
    /// Elsewhere (no device) `block` just runs.
    /// - Parameters:
    ///   - reason: what the work is, for debugging.
    ///   - block: the work; its argument is true when the time ran out.
    public func performExpiringActivity(withReason reason: String, using block: @escaping @Sendable (Bool) -> Void) {
        let activity = LifecycleListener.beginActivity(reason: reason) { block(true) }
        let thread = Thread {
            block(false)
            if let activity { LifecycleListener.endActivity(activity) }
        }
        thread.start()
    }
}

extension Notification.Name {
    /// Posted in an app extension when its host app goes to the background.
    public static let NSExtensionHostDidEnterBackground = Notification.Name("NSExtensionHostDidEnterBackgroundNotification")
    /// Posted in an app extension when its host app is about to come to the foreground.
    public static let NSExtensionHostWillEnterForeground = Notification.Name("NSExtensionHostWillEnterForegroundNotification")
    /// Posted in an app extension when its host app is about to stop being active.
    public static let NSExtensionHostWillResignActive = Notification.Name("NSExtensionHostWillResignActiveNotification")
    /// Posted in an app extension when its host app became active.
    public static let NSExtensionHostDidBecomeActive = Notification.Name("NSExtensionHostDidBecomeActiveNotification")
}
#endif
