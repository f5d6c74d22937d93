import Foundation
import NotificationDelivery

/// What became of a push (``SimulatedDevice/push(_:to:)``): what the person sees,
/// and what the app's notification service extension did wrong, if anything.
public struct PushOutcome: Sendable, CustomStringConvertible {
    /// The request the push made (its original content).
    public let request: UNNotificationRequest
    /// What was delivered: the extension's content, or the original (nil when the
    /// app may not notify).
    public let delivered: UNNotificationContent?
    /// Whether the device launched the app's service extension for it.
    public let extensionRan: Bool
    /// What the extension did that iOS reports or works around.
    public let findings: [PushFinding]
    /// The extension's process, when it ran.
    public let process: ProcessOutcome?

    public var description: String {
        "push \(request.identifier): " + (delivered.map { "delivered \"\($0.title)\" / \"\($0.body)\"" } ?? "not delivered")
            + (extensionRan ? ", extension ran" : "") + (findings.isEmpty ? "" : ", findings: \(findings)")
    }
}

/// A notification service extension's mistake, as the device saw it.
public enum PushFinding: Sendable, Hashable, CustomStringConvertible {
    /// The content handler was called `times` times; the first content was delivered.
    case contentHandlerCalledMoreThanOnce(times: Int)
    /// The content handler was not called within the time limit (nor in
    /// `serviceExtensionTimeWillExpire()`): the original content was delivered, as on iOS.
    case contentHandlerNeverCalled(timeLimit: TimeInterval)
    /// The extension's process ended without handing a content (crashed, was
    /// killed, exited): the original content was delivered.
    case extensionEnded(status: Int32, signal: Int32?)
    /// What the extension handed was refused (why); the original content was delivered.
    case contentRefused(String)

    public var description: String {
        switch self {
        case .contentHandlerCalledMoreThanOnce(let times): "the content handler was called \(times) times; call it once"
        case .contentHandlerNeverCalled(let limit):
            "the content handler was not called within \(Int(limit)) s, nor in serviceExtensionTimeWillExpire(): the person saw the original content"
        case let .extensionEnded(status, signal):
            "the extension ended (" + (signal.map { "signal \($0)" } ?? "status \(status)") + ") without calling its content handler: the person saw the original content"
        case .contentRefused(let why): "the extension's content was refused (\(why)): the person saw the original content"
        }
    }
}
