import AppGroupSystem
import Foundation

/// What the package's stores ask of the simulated device that launched this
/// process, over the channel the device made for it (AppGroupSystem's
/// `DeviceRequests`): the device's own records (the keychain's device state, the
/// biometric sensor) are read-only to a target, so a change a target may cause
/// (a prompt consuming the next scripted outcome) is asked of the device, which
/// knows who asks by the channel alone.
package enum DeviceRequestChannel {
    /// Whether this process was launched by a simulated device and can ask it.
    package static var isConnected: Bool { DeviceRequests.isConnected }

    /// Asks the device `kind` with a one-line `payload`; its answer's payload.
    /// - Throws: the reason, in words, when the device did not answer or refused.
    package static func request(_ kind: String, _ payload: String, timeout: TimeInterval = 120) throws -> String {
        do {
            return try DeviceRequests.request(kind, payload, timeout: timeout)
        } catch {
            throw DeviceChannelFailure(reason: error.description)
        }
    }
}

/// Why a request to the device got no answer, in words.
package struct DeviceChannelFailure: Error, Sendable, CustomStringConvertible {
    package let reason: String
    package var description: String { reason }
}
