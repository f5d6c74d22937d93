import Foundation

extension SimulatedDevice {
    /// What happens to a device's directory when its test is done with it, chosen
    /// by the environment variable `APPGROUP_KEEP_DEVICE` (``environmentKey``).
    ///
    /// A kept device's path goes to standard error with an `appgroup` command that
    /// inspects it; nothing removes it afterwards (it is under the system's
    /// temporary directory).
    public enum KeepPolicy: String, Sendable, Hashable, CaseIterable {
        /// Remove every device (the default, when the variable is unset or empty).
        case never
        /// Keep a device whose test failed (see ``SimulatedDevice/hasFailed`` for
        /// what counts as failing).
        case onFailure = "on-failure"
        /// Keep every device.
        case always

        /// `APPGROUP_KEEP_DEVICE`: `never` (default), `on-failure` or `always`.
        public static let environmentKey = "APPGROUP_KEEP_DEVICE"

        /// The policy `environment` names.
        /// - Throws: ``SimulationError/invalidKeepPolicy(_:)`` for any other value, so that a typo
        ///   does not silently remove the device you meant to keep.
        public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
            guard let value = environment[Self.environmentKey], !value.isEmpty else {
                self = .never
                return
            }
            guard let policy = KeepPolicy(rawValue: value) else { throw SimulationError.invalidKeepPolicy(InvalidKeepPolicy(value: value)) }
            self = policy
        }

        /// Whether a device that has (or has not) seen a failure is kept.
        public func keeps(failed: Bool) -> Bool {
            switch self {
            case .never: false
            case .onFailure: failed
            case .always: true
            }
        }
    }
}

/// `APPGROUP_KEEP_DEVICE` holds a value that is not a ``SimulatedDevice/KeepPolicy``.
public struct InvalidKeepPolicy: CustomStringConvertible, Sendable, Hashable {
    /// The value found.
    public let value: String
    public var description: String {
        let accepted = SimulatedDevice.KeepPolicy.allCases.map(\.rawValue).joined(separator: ", ")
        return "\(SimulatedDevice.KeepPolicy.environmentKey)=\(value) is not a keep policy: set it to one of \(accepted), or unset it"
    }
}
