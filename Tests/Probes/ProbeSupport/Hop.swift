import Foundation

/// Where code under test moves its work: each runs `body` there and waits for it.
/// Shared by ScopeProbe and the keychain's scope tests, which hop the same ways.
public enum Hop: String, CaseIterable, Sendable {
    case dispatchQueue, operationQueue, thread

    private final class Outcome<T>: @unchecked Sendable {
        var value: Result<T, any Error>?
    }

    public struct TimedOut: Error, CustomStringConvertible {
        public let hop: Hop
        public var description: String { "the work hopped to a \(hop) did not finish within 60 s" }
    }

    /// Runs `body` on the hop's queue or thread and returns its result.
    public func run<T>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let outcome = Outcome<T>()
        let done = DispatchSemaphore(value: 0)
        let work: @Sendable () -> Void = {
            outcome.value = Result { try body() }
            done.signal()
        }
        switch self {
        case .dispatchQueue: DispatchQueue(label: "hop").async(execute: work)
        case .operationQueue: OperationQueue().addOperation(work)
        case .thread: Thread(block: work).start()
        }
        guard done.wait(timeout: .now() + 60) == .success, let value = outcome.value else { throw TimedOut(hop: self) }
        return try value.get()
    }
}
