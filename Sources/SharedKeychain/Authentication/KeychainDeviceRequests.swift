import AppGroupContainer
import AppGroupFoundation
import Foundation

/// Prompts a target asks its device to run: the sensor is the device's record,
/// read-only to a target, so the outcome a prompt consumes, the failed matches it
/// counts and the lockout it may begin are the device's to change (iOS's
/// coreauthd and Secure Enclave; here the simulated device, in the test process).
///
/// The target sends what the prompt must prove (the goal: data, no code) and the
/// reason it shows, over the channel the device made for it; the device runs
/// ``Authenticator/authenticateHere(_:reason:)`` on its own sensor file and answers
/// with what was proved (or why not) and the sensor and state it was proved in.
/// What the request says of its sender is not needed: the device asks nothing of it
/// but the prompt, and its root is the device's own.
package enum KeychainDeviceRequests {
    /// The request's kind on the channel.
    package static let authenticateKind = "keychain-authenticate"

    struct Request: Codable {
        /// The keychain device's name (the target's `APP_GROUP_KEYCHAIN_DEVICE`).
        var device: String
        var goal: AuthenticationGoal
        var reason: String
    }

    struct Answer: Codable {
        var factors: AuthenticationFactors?
        var failure: AuthenticationOutcome?
        /// The sensor the prompts ran on, without its script and history (not the target's to read).
        var sensor: SimulatedBiometry
        /// The device's state the prompts ran in (its record's coding).
        var state: DeviceStateRecord
    }

    // MARK: The target's side

    /// Asks the device to run the prompts of `goal` on `device` (the device's own
    /// keychain device, as ``KeychainDevice/isOwnedByLaunchingDevice`` checked).
    static func authenticate(_ goal: AuthenticationGoal, reason: String, on device: KeychainDevice)
        throws -> Result<AuthenticationProof, AuthenticationOutcome> {
        let payload = try encode(Request(device: device.name, goal: goal, reason: reason))
        let reply: String
        do {
            reply = try DeviceRequestChannel.request(authenticateKind, payload)
        } catch {
            throw KeychainError.notAvailable(problem: "the prompt \"\(reason.prefix(80))\" on \(device) is run by the simulated device that launched this process, and it did not run it: \(error)")
        }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(reply.utf8)) else {
            throw KeychainError.notAvailable(problem: "the simulated device answered the prompt \"\(reason.prefix(80))\" on \(device) with something that is not an answer (\(reply.prefix(120)))")
        }
        if let factors = answer.factors {
            return .success(AuthenticationProof(device: device, sensor: answer.sensor, state: answer.state.state, factors: factors))
        }
        return .failure(answer.failure ?? .systemCancel)
    }

    // MARK: The device's side

    /// The device's answer to `payload`, a request of kind ``authenticateKind`` from a
    /// target of the device whose root is `root`: the answer's payload, or why it was
    /// refused (a malformed request, an unreadable sensor), in words.
    package static func answerAuthentication(_ payload: String, root: URL) -> Result<String, DeviceRequestRefusal> {
        guard let request = try? JSONDecoder().decode(Request.self, from: Data(payload.utf8)) else {
            return .failure(DeviceRequestRefusal("the request is not a keychain authentication request"))
        }
        do {
            let device = try KeychainDevice(root: root, name: request.device)
            let (result, sensor, state) = try Authenticator(device: device).promptHere(request.goal, reason: request.reason)
            var carried = sensor
            carried.scriptedOutcomes = []
            carried.presentedPrompts = []
            let answer: Answer
            switch result {
            case let .success(factors): answer = Answer(factors: factors, failure: nil, sensor: carried, state: DeviceStateRecord(state))
            case let .failure(outcome): answer = Answer(factors: nil, failure: outcome, sensor: carried, state: DeviceStateRecord(state))
            }
            return .success(try encode(answer))
        } catch {
            return .failure(DeviceRequestRefusal("\(error)"))
        }
    }

    private static func encode(_ value: some Encodable) throws -> String {
        let data = try JSONEncoder().encode(value)
        return String(decoding: data, as: UTF8.self)
    }
}

/// Why the device refused a target's request, in words (sent back to the target).
package struct DeviceRequestRefusal: Error, Sendable, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
