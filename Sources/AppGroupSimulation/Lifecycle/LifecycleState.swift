/// Where a launched target is in its life, as iOS moves an app or extension.
public enum LifecycleState: String, Sendable, Hashable, CustomStringConvertible {
    /// Running in the foreground, active (how every target starts).
    case foreground
    /// In the background, still running (told with `didEnterBackground`).
    case background
    /// Suspended: stopped, running no code, until resumed.
    case suspended
    /// Ended: exited, crashed, terminated or killed (see ``SimulatedDevice/terminations``).
    case ended

    public var description: String {
        switch self {
        case .foreground: return "in the foreground"
        case .background: return "in the background"
        case .suspended: return "suspended"
        case .ended: return "ended"
        }
    }
}

/// The notification names iOS posts on `NotificationCenter.default` inside a
/// process as its lifecycle moves: UIApplication's for an app, the extension
/// host's for an extension (the raw values Apple's constants have).
public enum LifecycleNotificationName {
    /// `UIApplication.willResignActiveNotification`.
    public static let willResignActive = "UIApplicationWillResignActiveNotification"
    /// `UIApplication.didEnterBackgroundNotification`.
    public static let didEnterBackground = "UIApplicationDidEnterBackgroundNotification"
    /// `UIApplication.willEnterForegroundNotification`.
    public static let willEnterForeground = "UIApplicationWillEnterForegroundNotification"
    /// `UIApplication.didBecomeActiveNotification`.
    public static let didBecomeActive = "UIApplicationDidBecomeActiveNotification"
    /// `UIApplication.willTerminateNotification`.
    public static let willTerminate = "UIApplicationWillTerminateNotification"
    /// `Notification.Name.NSExtensionHostWillResignActive`.
    public static let extensionHostWillResignActive = "NSExtensionHostWillResignActiveNotification"
    /// `Notification.Name.NSExtensionHostDidEnterBackground`.
    public static let extensionHostDidEnterBackground = "NSExtensionHostDidEnterBackgroundNotification"
    /// `Notification.Name.NSExtensionHostWillEnterForeground`.
    public static let extensionHostWillEnterForeground = "NSExtensionHostWillEnterForegroundNotification"
    /// `Notification.Name.NSExtensionHostDidBecomeActive`.
    public static let extensionHostDidBecomeActive = "NSExtensionHostDidBecomeActiveNotification"

    /// What `kind` is told going to the background, in order.
    static func toBackground(_ kind: SimulatedTarget.Kind) -> [String] {
        kind == .app || kind == .other ? [willResignActive, didEnterBackground]
            : [extensionHostWillResignActive, extensionHostDidEnterBackground]
    }

    /// What `kind` is told coming back to the foreground, in order.
    static func toForeground(_ kind: SimulatedTarget.Kind) -> [String] {
        kind == .app || kind == .other ? [willEnterForeground, didBecomeActive]
            : [extensionHostWillEnterForeground, extensionHostDidBecomeActive]
    }

    /// What `kind` is told before it is terminated (extensions are told nothing).
    static func beforeTermination(_ kind: SimulatedTarget.Kind) -> [String] {
        kind == .app || kind == .other ? [willTerminate] : []
    }
}
