import Foundation

/// The target side of requests a target makes of its device over the lifecycle
/// channel (the socket pair the device made for this process alone), for what
/// the device owns and the target may only ask for: the device knows which target
/// asks by the channel the request came on, never by what the request says.
///
/// A request is the line `request <id> <kind> <payload>` to the device; its answer
/// comes back as `<sequence> answer <id> ok <payload>` or `... answer <id> error
/// <message>` (acknowledged like every line from the device). One line each way:
/// a payload holds no newline.
package enum DeviceRequests {
    /// Why a request got no answer.
    package enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The process was not started by a device with a channel.
        case notConnected
        /// Called on the thread that reads the channel (inside a lifecycle
        /// notification's observer), which cannot also wait for the answer.
        case onListenerThread
        /// The device closed the channel (it was removed) before answering.
        case channelClosed
        /// No answer came in `seconds` (a liveness deadline).
        case noAnswer(seconds: TimeInterval)
        /// The request could not be sent.
        case sendFailed(Errno)
        /// The payload holds a newline.
        case invalidPayload
        /// The device refused the request, saying why.
        case refused(String)

        package var description: String {
            switch self {
            case .notConnected: "this process was not started by a simulated device, so it has no channel to ask the device on"
            case .onListenerThread: "a request to the device cannot be made inside an observer of a lifecycle notification (the thread that would deliver the answer is the one waiting); make it from another thread or queue"
            case .channelClosed: "the device closed the channel (it was removed) before it answered"
            case .noAnswer(let seconds): "the device gave no answer in \(Int(seconds)) s"
            case .sendFailed(let errno): "the request could not be sent to the device: \(errno)"
            case .invalidPayload: "a request is one line: its payload must hold no newline"
            case .refused(let why): "the device refused the request: \(why)"
            }
        }
    }

    private final class Table: @unchecked Sendable {
        // @unchecked: every property is guarded by `condition`.
        let condition = NSCondition()
        var next = 1
        var waiting: Set<Int> = []
        var answers: [Int: String] = [:]
        var closed = false
    }
    private static let table = Table()

    /// Whether this process can ask its device (it was started by one, with a channel).
    package static var isConnected: Bool { ProcessSystemCalls.lifecycleListening }

    /// Sends the request `kind` with `payload` and waits (at most `timeout`
    /// seconds) for the device's answer: its payload when the device did what was
    /// asked.
    package static func request(_ kind: String, _ payload: String, timeout: TimeInterval = 120) throws(Failure) -> String {
        guard isConnected else { throw .notConnected }
        guard !ProcessSystemCalls.onLifecycleListenerThread else { throw .onListenerThread }
        guard !payload.contains("\n"), !kind.contains("\n"), !kind.contains(" ") else { throw .invalidPayload }
        let condition = table.condition
        condition.lock()
        let id = table.next
        table.next += 1
        table.waiting.insert(id)
        let closed = table.closed
        condition.unlock()
        func forget() {
            condition.lock()
            table.waiting.remove(id)
            table.answers.removeValue(forKey: id)
            condition.unlock()
        }
        guard !closed else { forget(); throw .channelClosed }
        do {
            try ProcessSystemCalls.sendLifecycleLine("request \(id) \(kind) \(payload)")
        } catch {
            forget()
            throw .sendFailed(error)
        }
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        var answer: String?
        while true {
            if let found = table.answers.removeValue(forKey: id) { answer = found; break }
            if table.closed { break }
            if !condition.wait(until: deadline), table.answers[id] == nil { break }
        }
        let endedClosed = table.closed
        table.waiting.remove(id)
        condition.unlock()
        guard let answer else { throw endedClosed ? .channelClosed : .noAnswer(seconds: timeout) }
        if answer.hasPrefix("ok ") { return String(answer.dropFirst(3)) }
        if answer == "ok" { return "" }
        throw .refused(answer.hasPrefix("error ") ? String(answer.dropFirst(6)) : answer)
    }

    /// Takes the device's answer line's argument (`<id> ok|error ...`), from the
    /// listener thread. An answer nobody waits for (its request timed out) is dropped.
    static func deliverAnswer(_ argument: String) {
        let parts = argument.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, let id = Int(first) else { return }
        let condition = table.condition
        condition.lock()
        if table.waiting.contains(id) { table.answers[id] = parts.count > 1 ? String(parts[1]) : "" }
        condition.broadcast()
        condition.unlock()
    }

    /// The channel ended: no answer will come.
    static func channelClosed() {
        let condition = table.condition
        condition.lock()
        table.closed = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Called by CAppGroupSys's listener thread when the device closed the channel.
@_cdecl("agc_lifecycle_closed")
func agcLifecycleClosed() {
    DeviceRequests.channelClosed()
}
