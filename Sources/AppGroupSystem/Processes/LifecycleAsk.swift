import Foundation

/// What the device answered to a target's ask (``LifecycleListener/ask(_:_:timeout:)``).
package enum LifecycleAnswer: Sendable, Equatable {
    /// The device did what was asked; its answer (may be empty).
    case accepted(String)
    /// The device refused; why, in its words.
    case refused(String)
    /// The line was sent from the listener's own thread (a lifecycle handler), which
    /// cannot wait for the answer: the device handles the ask before it reads the
    /// acknowledgement of the line being handled, so it is recorded all the same.
    case sent
    /// This process has no channel (the test process, a program launched without a
    /// target, or a child of a target).
    case noChannel
    /// The ask could not be sent, or no answer came in time; why.
    case unanswered(String)
}

// A target asks its device on the lifecycle channel the device made for it (fd 3):
// `ask <id> <subject> <payload>`; the device answers `<sequence> reply <id> ok
// <text>` or `... reply <id> refused <text>`. The device knows the asker from the
// channel, so an ask says nothing of who sends it.
extension LifecycleListener {
    private struct Asks {
        var next = 1
        var answers: [Int: LifecycleAnswer] = [:]
        var waiting: Set<Int> = []
    }
    private static let asks = Locked(Asks())
    private static let answered = NSCondition()
    private static let listenerThreadKey = "AppGroupLifecycleListenerThread"

    /// Asks the device for `subject` with `payload` (one line: no newline) and waits
    /// at most `timeout` seconds for its answer.
    package static func ask(_ subject: String, _ payload: String, timeout: TimeInterval) -> LifecycleAnswer {
        guard isListening else { return .noChannel }
        guard !subject.contains(" "), !subject.contains("\n"), !payload.contains("\n") else {
            return .unanswered("an ask is one line and its subject one word")
        }
        let onListener = Thread.current.threadDictionary[listenerThreadKey] != nil
        let id = asks.withLock { state -> Int in
            defer { state.next += 1 }
            if !onListener { state.waiting.insert(state.next) }
            return state.next
        }
        do {
            try ProcessSystemCalls.sendLifecycleLine("ask \(id) \(subject) \(payload)")
        } catch {
            _ = asks.withLock { $0.waiting.remove(id) }
            return .unanswered("the lifecycle channel refused the line: \(error)")
        }
        if onListener { return .sent }
        let deadline = Date().addingTimeInterval(timeout)
        answered.lock()
        defer { answered.unlock() }
        while true {
            if let answer = asks.withLock({ state -> LifecycleAnswer? in
                guard let answer = state.answers.removeValue(forKey: id) else { return nil }
                state.waiting.remove(id)
                return answer
            }) { return answer }
            if !answered.wait(until: deadline) {
                asks.withLock { state in
                    state.waiting.remove(id)
                    state.answers.removeValue(forKey: id)
                }
                return .unanswered("the device did not answer within \(Int(timeout)) s")
            }
        }
    }

    /// Marks the calling thread as the listener's, whose asks cannot wait.
    static func markListenerThread() {
        Thread.current.threadDictionary[listenerThreadKey] = true
    }

    /// Takes `reply <id> ok|refused <text>` (the words after the sequence number);
    /// an answer nobody waits for is dropped.
    static func takeReply(_ words: String) {
        let parts = words.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, let id = Int(parts[0]) else { return }
        let text = parts.count > 2 ? parts[2] : ""
        let answer: LifecycleAnswer = parts[1] == "ok" ? .accepted(text) : .refused(text)
        answered.lock()
        asks.withLock { state in
            if state.waiting.contains(id) { state.answers[id] = answer }
        }
        answered.broadcast()
        answered.unlock()
    }
}
