import AppGroupContainer
import Foundation

/// Where this process's notification center runs its calls.
///
/// - A target a simulated device launched: on the device, over the channel the
///   device made for it (the device knows which app asks, and keeps the app's
///   records where no target may write).
/// - A process without a channel (a test process, a program launched without a
///   target): on records in this process's memory, the process being one app.
///   They start empty with authorization not determined; the first
///   `requestAuthorization` is answered Allow, as a person tapping Allow would.
enum CenterBackend {
    private static let memory = CenterLock(CenterRecords())

    static func perform(_ ask: CenterAsk) throws -> CenterAnswer {
        if let problem = ask.problem {
            throw NotificationStoreError.requestRefused(from: "this process", problem: problem)
        }
        let line: String
        do { line = String(decoding: try JSONEncoder().encode(ask), as: UTF8.self) } catch {
            throw NotificationStoreError.malformed(path: "(a call to the device)", problem: "\(error)")
        }
        let call = "\(ask.operation.rawValue) (\(CenterAsk.subject))"
        let answer: CenterAnswer
        switch DeviceChannel.ask(CenterAsk.subject, line) {
        case .noChannel:
            answer = memory.withLock { $0.perform(ask, now: Date()) }
        case .accepted(let text):
            guard let decoded = try? JSONDecoder().decode(CenterAnswer.self, from: Data(text.utf8)) else {
                throw NotificationStoreError.deviceDidNotAnswer(call: call, problem: "its answer is not the JSON this package sends")
            }
            answer = decoded
        case .sent:
            // From a lifecycle handler: the device takes the call but its answer cannot be read.
            answer = CenterAnswer()
        case .refused(let why): throw NotificationStoreError.deviceDidNotAnswer(call: call, problem: "it refused: \(why)")
        case .unanswered(let why): throw NotificationStoreError.deviceDidNotAnswer(call: call, problem: why)
        }
        if let error = answer.error { throw error }
        return answer
    }
}

/// A value behind a lock.
final class CenterLock<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is only touched with `lock` held.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock(); defer { lock.unlock() }
        return try body(&value)
    }
}
