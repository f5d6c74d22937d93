#if !canImport(Darwin)
import Foundation
import NotificationDelivery

extension ExtensionMain {
    /// The entry point of a notification service extension's executable, one line
    /// of `main.swift` naming the principal class (iOS names it in the Info.plist's
    /// `NSExtensionPrincipalClass`):
    ///
    /// ```swift
    /// import AppGroupSimulation
    ///
    /// ExtensionMain.run(NotificationService())
    /// ```
    ///
    /// The simulated device launches the executable for a push whose `aps` has
    /// `mutable-content: 1` (``SimulatedDevice/push(_:to:)``): `didReceive` runs
    /// on the main queue with the request, each content handed to its content
    /// handler goes to the device, and `serviceExtensionTimeWillExpire()` is
    /// called on another thread when the device's time limit comes. Without a
    /// push (not launched by the device) it exits 64 with a message; called off
    /// the main thread, 70.
    public static func run<Principal: UNNotificationServiceExtension>(_ principal: @autoclosure @MainActor () -> Principal) -> Never {
        guard Thread.isMainThread else {
            fail(70, "ExtensionMain.run was called off the main thread; call it from the top-level code of main.swift")
        }
        MainActor.assumeIsolated { NotificationServiceHost.start(principal()) }
    }
}
#endif
