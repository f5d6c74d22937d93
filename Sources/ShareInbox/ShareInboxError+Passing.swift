import AppGroupContainer

extension ShareInboxError {
    /// Runs `body`, the inbox's own work, passing up what it throws as a
    /// ``ShareInboxError``: the inbox's own errors as they are, the container's as
    /// ``container(_:)``. The inbox's code throws nothing else.
    static func passingUp<T>(_ body: () throws -> T) throws(ShareInboxError) -> T {
        do {
            return try body()
        } catch {
            throw from(error)
        }
    }

    /// `error`, which the inbox's code threw, as a ``ShareInboxError``.
    static func from(_ error: any Error) -> ShareInboxError {
        switch error {
        case let error as ShareInboxError: return error
        case let error as AppGroupError: return .container(error)
        // Not reached (see above); said rather than lost if it ever is.
        default: return .invalidInboxItem(field: "(inbox)", problem: "an unexpected \(type(of: error)): \(error)")
        }
    }
}

/// A drain handler's own error, carried through the drain's machinery so that it
/// comes out of ``ShareInbox/drain(maximumCount:_:)`` exactly as the handler threw it.
struct HandlerFailure: Error {
    let error: any Error
}

extension ShareInboxError {
    /// The container's error this one carries (``container(_:)``), nil for the
    /// inbox's own.
    package var containerError: AppGroupError? {
        if case let .container(error) = self { return error }
        return nil
    }
}
