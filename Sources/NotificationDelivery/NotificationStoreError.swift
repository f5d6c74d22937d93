import AppGroupContainer
import Foundation

/// What went wrong with the notification center's records or the device's
/// channel: the package's own error (Apple's `UNError` stays for what iOS
/// reports with it).
public enum NotificationStoreError: Error, CustomStringConvertible, Sendable {
    /// A file of the device's notification records could not be read or written.
    case files(AppGroupError)
    /// A record is not what this package writes.
    case malformed(path: String, problem: String)
    /// In a target's process: the device did not answer the call, or its answer
    /// could not be read.
    case deviceDidNotAnswer(call: String, problem: String)
    /// The device refused what a target's process asked on its channel: `from`
    /// (the target's name and process), why.
    case requestRefused(from: String, problem: String)
    /// A push payload the device cannot deliver (what APNs or iOS would refuse).
    case invalidPayload(String)

    public var description: String {
        switch self {
        case .files(let error): "notification records: \(error)"
        case let .malformed(path, problem): "notification record \(path): \(problem)"
        case let .deviceDidNotAnswer(call, problem):
            "UserNotifications: the device did not answer \(call): \(problem); a target reaches its notification center only when a simulated device launched it"
        case let .requestRefused(from, problem): "UserNotifications: the device refused a call from \(from): \(problem)"
        case let .invalidPayload(problem): "push payload: \(problem); send what APNs accepts: {\"aps\": {\"alert\": ...}, custom keys...}"
        }
    }
}
