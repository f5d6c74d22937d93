import AppGroupSystem
import Foundation
internal import SharedKeychain

/// Requests a target makes of the device on its own channel (the target's side is
/// AppGroupSystem's `DeviceRequests`): `request <id> <kind> <payload>`, answered by
/// `<sequence> answer <id> ok <payload>` or `... error <why>`.
///
/// The device knows the sender by the channel alone (it made the socket pair for
/// this process) and acts only on its own records under its own root: nothing in a
/// request names a path the device follows. Kinds:
/// - `keychain-authenticate`: a biometric or passcode prompt on the device's
///   simulated sensor (SharedKeychain's `KeychainDeviceRequests`), whose file the
///   target may read but not write.
extension LifecycleConnection {
    /// Requests of one target answered at once; more are refused (a target that
    /// floods the channel costs the device no more than this many threads).
    static let requestsInFlightLimit = 4
    /// The longest answer sent: the target's listener reads lines of at most 4 KiB.
    static let answerLimit = 3_072

    /// Answers request `id` (`<kind> <payload>`) on a thread of its own, so that the
    /// reader goes on reading (acknowledgements, other requests) meanwhile.
    /// Called with `condition` held.
    func answerLater(_ id: Int, _ request: String) {
        guard requestsInFlight < Self.requestsInFlightLimit else {
            let refusal = "\(Self.requestsInFlightLimit) requests of \(processDescription) are being answered already; ask again when one is answered"
            DispatchQueue.global().async { [self] in sendAnswer(id, "error " + refusal) }
            return
        }
        requestsInFlight += 1
        let parts = request.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        let kind = String(parts[0])
        let payload = parts.count > 1 ? String(parts[1]) : ""
        let root = deviceRoot
        let thread = Thread { [self] in
            ThreadName.setCurrent("device request")
            let answer: String
            switch kind {
            case KeychainDeviceRequests.authenticateKind:
                switch KeychainDeviceRequests.answerAuthentication(payload, root: root) {
                case let .success(reply): answer = "ok " + reply
                case let .failure(refusal): answer = "error " + refusal.description
                }
            default:
                answer = "error unknown request \"\(kind.prefix(40))\"; the device answers \(KeychainDeviceRequests.authenticateKind)"
            }
            sendAnswer(id, answer)
            condition.lock()
            requestsInFlight -= 1
            condition.unlock()
        }
        thread.start()
    }

    /// Sends the answer line (one line, bounded; an oversized answer is refused instead).
    private func sendAnswer(_ id: Int, _ answer: String) {
        var line = answer.replacingOccurrences(of: "\n", with: " ")
        if line.utf8.count > Self.answerLimit {
            line = line.hasPrefix("ok ") ? "error the answer is longer than the \(Self.answerLimit) bytes a line may hold"
                : String(decoding: Array(line.utf8.prefix(Self.answerLimit)), as: UTF8.self)
        }
        condition.lock()
        let sequence = nextSequence
        nextSequence += 1
        condition.unlock()
        // A target that ended meanwhile has no one to read it: nothing to do.
        try? sendLine("\(sequence) answer \(id) \(line)")
    }
}
