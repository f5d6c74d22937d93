#if ENABLE_MOCKING
/// For the tests' probe executables (debug builds only): watches the raw system
/// calls the package makes, so that a test can stop a real process just before
/// any one of them and SIGKILL it there. Built on ``FaultInjection``; it never
/// fails a call.
package enum SystemCallObserver {
    /// Runs `body`, calling `observe` with each raw call's C function name and
    /// path just before the call is made (on the calling thread, so `observe` may
    /// block it).
    package static func run<T>(_ observe: @escaping @Sendable (_ call: String, _ path: String) -> Void, _ body: () throws -> T) rethrows -> T {
        try FaultInjection.with({ call, path in
            observe(call.rawValue, path)
            return nil
        }, body)
    }
}
#endif
