import AppGroupContainer
import AppGroupFoundation
import Foundation

/// How a share request to an extension ended, as the share sheet learns it
/// (``SimulatedDevice/share(_:to:built:arguments:environment:timeout:)``).
public struct ShareOutcome: Sendable, CustomStringConvertible {
    /// The end of the request.
    public enum Ending: Sendable {
        /// The extension called `completeRequest(returningItems:completionHandler:)`
        /// with these items (their file attachments are copies the host may keep).
        case completed(returnedItems: [NSExtensionItem])
        /// The extension called `cancelRequest(withError:)` with this error; nil when
        /// its process ended without completing or cancelling, which iOS treats as a cancel.
        case cancelled(error: NSError?)
        /// The extension neither completed nor cancelled within the deadline: its
        /// process was killed (SIGKILL), as iOS ends an extension that does not finish.
        case timedOut(seconds: TimeInterval)
    }

    /// How the request ended.
    public let ending: Ending
    /// The extension's process: its exit, output and error output.
    public let process: ProcessOutcome

    /// The items returned, when the request was completed; nil otherwise.
    public var returnedItems: [NSExtensionItem]? {
        if case .completed(let items) = ending { return items }
        return nil
    }

    /// Whether the request counts as cancelled (explicitly, or by an end without an answer).
    public var isCancelled: Bool {
        if case .cancelled = ending { return true }
        return false
    }

    public var description: String {
        switch ending {
        case .completed(let items):
            return "the share request was completed with \(items.count) returned item(s) by \(process.label)"
        case .cancelled(let error?):
            return "the share request was cancelled with error \(error.domain) \(error.code) (\(error.localizedDescription)) by \(process.label)"
        case .cancelled(nil):
            return "the share request ended without completeRequest or cancelRequest (iOS treats that as a cancel): \(process)"
        case .timedOut(let seconds):
            return "the share request timed out: \(process.label) neither called completeRequest(returningItems:completionHandler:) nor cancelRequest(withError:) within \(ProcessFailure.seconds(seconds)) s and was killed; its standard error:\n\(process.standardError)"
        }
    }
}
