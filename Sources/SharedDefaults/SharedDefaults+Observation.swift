import AppGroupContainer
import Foundation

extension SharedDefaults {
    /// Calls `handler` with the value of `key` (as ``object(forKey:)`` returns it)
    /// each time it changes, whichever process changed it, as KVO does across
    /// processes for app-group suites on Apple's platforms.
    ///
    /// Calls come on a private thread, one at a time, in order, as the identity of
    /// the code that added the observer (its `IdentityScope`, or none). Rapid changes may
    /// coalesce into one call, but the latest value always arrives. A change that
    /// leaves the value equal (another key changed, the same value written again)
    /// calls nothing. An idle observation uses no CPU.
    /// - Parameters:
    ///   - defaultName: the key observed.
    ///   - initial: also call `handler` at once with the current value.
    ///   - handler: called with each new value (nil when the key is removed and no
    ///     default is registered).
    /// - Returns: the observation; calls stop when it is cancelled or released.
    /// - Throws: ``SharedDefaultsError/fileSystem(path:reason:)`` when the Preferences
    ///   directory cannot be watched (the inotify limit reached, for instance).
    public func addObserver(forKey defaultName: String, initial: Bool = false,
                            handler: @escaping @Sendable (Any?) -> Void) throws -> SharedDefaultsObservation {
        let id: Int
        do {
            // Reads through the store, not `self`: an observation outliving its
            // SharedDefaults instance keeps reporting true values, never a false nil.
            let store = self.store
            id = try observers.add(key: defaultName, initial: initial, read: { [weak self] key in
                do {
                    return try store.currentValue(forKey: key).map(CanonicalTree.value) ?? RegistrationDomain.shared.value(forKey: key)
                } catch {
                    self?.report(error, during: "observing \"\(key)\"")
                    return RegistrationDomain.shared.value(forKey: key)
                }
            }, handler: handler)
        } catch let error as AppGroupError {
            throw SharedDefaultsError.fileSystem(path: fileURL.deletingLastPathComponent().path, reason: error)
        }
        return SharedDefaultsObservation(key: defaultName, hub: observers, id: id)
    }

    /// The values of `key` as an async sequence: the current value first, then each
    /// new value whichever process wrote it (rapid changes may coalesce; the last
    /// always arrives). Ending the iteration (or cancelling its task) stops the
    /// observation. When the directory cannot be watched, the sequence yields the
    /// current value and finishes, and the failure is reported through ``lastError``.
    public func observe(_ defaultName: String) -> AsyncStream<Any?> {
        let (stream, continuation) = AsyncStream<Any?>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let sink = UncheckedSendable(continuation)
        do {
            let observation = try addObserver(forKey: defaultName, initial: true) { value in
                // Canonical values are immutable value types, safe to hand over.
                nonisolated(unsafe) let handed = value
                sink.value.yield(handed)
            }
            continuation.onTermination = { _ in observation.cancel() }
        } catch {
            report(error, during: "observe(\"\(defaultName)\")")
            continuation.yield(object(forKey: defaultName))
            continuation.finish()
        }
        return stream
    }

    /// The values of `key` as `Value`, as an async sequence (see ``observe(_:)``);
    /// nil when the key is missing or holds another type.
    ///
    /// ```swift
    /// for await count in defaults.observe("shareCount", as: Int.self) { print(count ?? 0) }
    /// ```
    public func observe<Value: Sendable>(_ defaultName: String, as type: Value.Type) -> AsyncStream<Value?> {
        let (stream, continuation) = AsyncStream<Value?>.makeStream(bufferingPolicy: .bufferingNewest(64))
        do {
            let observation = try addObserver(forKey: defaultName, initial: true) { value in
                continuation.yield(value as? Value)
            }
            continuation.onTermination = { _ in observation.cancel() }
        } catch {
            report(error, during: "observe(\"\(defaultName)\", as: \(Value.self))")
            continuation.yield(object(forKey: defaultName) as? Value)
            continuation.finish()
        }
        return stream
    }
}

/// Carries a value the compiler cannot prove Sendable across a concurrency
/// boundary. Used only for canonical property-list values, which are immutable
/// value types (String, Int, Data, arrays and dictionaries of them).
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
