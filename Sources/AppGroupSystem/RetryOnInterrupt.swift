/// The EINTR policy, in one place between the raw calls (`Syscalls.swift`) and the
/// domain layer (``SystemCalls``): a call that fails with EINTR did nothing and is made
/// again when `retryOnInterrupt` says so; any other failure is returned as its
/// ``Errno``. Each caller states the policy: the lock wait decides for itself
/// (see ``SystemCalls/lock(_:_:wait:path:)``), everything else retries.

/// The value of `call`, or the ``Errno`` it left when it returned -1.
@inline(__always)
func valueOrErrno<I: FixedWidthInteger>(retryOnInterrupt: Bool, _ call: () -> I) -> Result<I, Errno> {
    while true {
        let value = call()
        if value != -1 { return .success(value) }
        let code = Errno.current
        if retryOnInterrupt && code == .EINTR { continue }
        return .failure(code)
    }
}

/// Success when `call` returned anything but -1; otherwise the ``Errno`` it left.
@inline(__always)
func nothingOrErrno<I: FixedWidthInteger>(retryOnInterrupt: Bool, _ call: () -> I) -> Result<Void, Errno> {
    valueOrErrno(retryOnInterrupt: retryOnInterrupt, call).map { _ in () }
}

/// The pointer `call` returned, or the ``Errno`` it left when it returned nil.
@inline(__always)
func pointerOrErrno<P>(retryOnInterrupt: Bool, _ call: () -> P?) -> Result<P, Errno> {
    while true {
        if let pointer = call() { return .success(pointer) }
        let code = Errno.current
        if retryOnInterrupt && code == .EINTR { continue }
        return .failure(code)
    }
}

extension Result where Failure == Errno {
    /// The value, or ``SystemError/call(operation:path:errno:)`` naming
    /// `operation` (the C function) and `path`.
    @inline(__always)
    func get(_ operation: String, _ path: String) throws(SystemError) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let code): throw .call(operation: operation, path: path, errno: code)
        }
    }
}
