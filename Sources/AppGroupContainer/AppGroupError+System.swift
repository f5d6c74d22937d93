import AppGroupSystem

extension AppGroupError {
    /// What the system layer threw, as this module's case carrying the same facts:
    /// callers above see one error type, and match `.systemCall(_, _, .ENOSPC)`
    /// as before.
    init(_ error: SystemError) {
        switch error {
        case let .call(operation, path, code): self = .systemCall(operation: operation, path: path, errno: code)
        case let .unsafePath(path, problem): self = .unsafePath(path: path, problem: problem)
        case let .notARegularFile(path, kind): self = .notARegularFile(path: path, kind: kind)
        case let .fileTooLarge(path, size, limit): self = .fileTooLarge(path: path, size: size, limit: limit)
        case let .untrustedDirectory(path, owner, mode, user): self = .untrustedDirectory(path: path, owner: owner, mode: mode, user: user)
        }
    }
}

/// Runs `body`, a step of the system layer, passing what it throws up as an
/// ``AppGroupError``: the one place where this module's functions turn the layer
/// below's error into its own.
@inline(__always) @discardableResult
func fromSystem<T>(_ body: @autoclosure () throws(SystemError) -> T) throws(AppGroupError) -> T {
    do {
        return try body()
    } catch {
        throw AppGroupError(error)
    }
}

/// Runs `body`, which throws the system layer's errors and errors of its own (a
/// caller's closure it calls, say): the former come out as ``AppGroupError``, the
/// others unchanged.
@inline(__always)
func mappingSystemErrors<T>(_ body: () throws -> T) rethrows -> T {
    do {
        return try body()
    } catch let error as SystemError {
        throw AppGroupError(error)
    }
}

/// ``fromSystem(_:)`` for several steps of the system layer, written as a closure
/// whose type names the error (`{ () throws(SystemError) in ... }`): Swift does
/// not infer a closure's error type from its body.
@inline(__always) @discardableResult
func fromSystem<T>(steps body: () throws(SystemError) -> T) throws(AppGroupError) -> T {
    do {
        return try body()
    } catch {
        throw AppGroupError(error)
    }
}
