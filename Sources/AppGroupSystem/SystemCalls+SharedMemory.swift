#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CAppGroupSys

/// The calls behind the device's shared signal table: a file mapped by every
/// process of the device, words changed atomically in it, and futex sleeps and
/// wakes on those words (which work across processes on a MAP_SHARED mapping).
extension SystemCalls {
    /// mmap(2) of the first `length` bytes of `fd`, MAP_SHARED, read and write.
    package static func mapShared(_ fd: Int32, length: Int, path: String) throws(SystemError) -> UnsafeMutableRawPointer {
        let address = system_mmap_shared(fd, length, path: path)
        guard let address, address != MAP_FAILED else {
            throw .call(operation: "mmap", path: path, errno: Errno(rawValue: errno))
        }
        return address
    }

    /// mmap(2) of the first `length` bytes of `fd` over the mapping at `base`
    /// (MAP_FIXED, MAP_SHARED, read and write): the same addresses now reach
    /// another file.
    package static func remapShared(_ fd: Int32, over base: UnsafeMutableRawPointer, length: Int, path: String) throws(SystemError) {
        let address = system_mmap_shared_at(base, length, fd, path: path)
        guard let address, address != MAP_FAILED else {
            throw .call(operation: "mmap", path: path, errno: Errno(rawValue: errno))
        }
    }

    /// Guards the mapping at `base` against its file being truncated by another
    /// process (agc_guard_mapping, a SIGBUS handler installed once and chained to
    /// the one before it): an access past the file's end then finds zero-filled
    /// private memory over the whole mapping instead of killing the process, and
    /// ``takeMappingFault(_:)`` says so. Nil when every guard slot is taken.
    package static func guardMapping(_ base: UnsafeMutableRawPointer, length: Int) -> Int32? {
        let slot = system_guard_mapping(base, length)
        return slot < 0 ? nil : slot
    }

    /// Forgets the guard of ``guardMapping(_:length:)`` (call it before unmapping).
    package static func unguardMapping(_ slot: Int32) {
        system_unguard_mapping(slot)
    }

    /// Whether the guarded mapping faulted (and was replaced by private memory)
    /// since the last call; clears the mark.
    package static func takeMappingFault(_ slot: Int32) -> Bool {
        system_guard_take_fault(slot)
    }

    /// munmap(2); a failure (only for an address that was never mapped) is ignored.
    package static func unmap(_ address: UnsafeMutableRawPointer, length: Int) {
        _ = system_munmap(address, length)
    }

    /// ftruncate(2), retried on EINTR.
    package static func truncate(_ fd: Int32, to length: Int64, path: String) throws(SystemError) {
        try nothingOrErrno(retryOnInterrupt: true) { system_ftruncate(fd, off_t(length), path: path) }.get("ftruncate", path)
    }

    /// How a futex sleep ended.
    package enum FutexWake: Sendable, Equatable {
        /// Woken, or the word no longer held the expected value, or a signal
        /// (SIGCONT after a stop, for one) interrupted it: look at the words again.
        case look
        /// The timeout passed.
        case timedOut
        /// The call failed (`errno`); the caller sleeps some other way.
        case failed(Errno)
    }

    /// futex(FUTEX_WAIT) (agc_futex_wait): sleeps while `word` holds `expected`,
    /// at most `seconds`.
    package static func futexWait(_ word: UnsafeMutablePointer<UInt32>, expected: UInt32, seconds: Double) -> FutexWake {
        let nanoseconds = Int64(max(0, min(seconds, 3600)) * 1_000_000_000)
        if system_futex_wait(word, expected, nanoseconds) == 0 { return .look }
        let code = Errno(rawValue: errno)
        if code == .EAGAIN || code == .EINTR { return .look }
        return code.rawValue == ETIMEDOUT ? .timedOut : .failed(code)
    }

    /// futex(FUTEX_WAKE) (agc_futex_wake) of every sleeper on `word`.
    package static func futexWakeAll(_ word: UnsafeMutablePointer<UInt32>) {
        _ = system_futex_wake(word, Int32.max)
    }
}

/// Atomic (sequentially consistent) operations on words of a shared mapping.
package enum SharedWord {
    package static func load(_ word: UnsafeMutablePointer<UInt32>) -> UInt32 { agc_atomic_load32(word) }
    /// Adds `value` (wrapping) and returns the new value.
    @discardableResult
    package static func add(_ word: UnsafeMutablePointer<UInt32>, _ value: UInt32) -> UInt32 { agc_atomic_add32(word, value) }
    /// Subtracts `value` (wrapping) and returns the new value.
    @discardableResult
    package static func subtract(_ word: UnsafeMutablePointer<UInt32>, _ value: UInt32) -> UInt32 { agc_atomic_sub32(word, value) }
    package static func load(_ word: UnsafeMutablePointer<UInt64>) -> UInt64 { agc_atomic_load64(word) }
    /// Stores `desired` if `word` holds `expected`; true when it did.
    package static func compareExchange(_ word: UnsafeMutablePointer<UInt64>, expected: UInt64, desired: UInt64) -> Bool {
        agc_atomic_cas64(word, expected, desired) == 1
    }
}
