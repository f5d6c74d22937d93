#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension SandboxSystemCalls {
    /// Writes a copy of the executable `source` as the new file `destination`,
    /// mode 0755, complete on disk before this returns (`open` with O_EXCL and
    /// O_CLOEXEC, `read`, `write`, `fchmod`, `fsync`, `close`; on failure `unlink`).
    /// The copy's descriptor exists only while ``SpawnGate`` is held alone, so no
    /// child this process starts meanwhile holds it open for writing, which would
    /// make an `execve` of the file fail with ETXTBSY. Give it a temporary name,
    /// then link or rename it where it is run.
    package static func copyExecutable(_ source: String, to destination: String) throws(Errno) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw Errno.current }
        defer { _ = close(input) }
        try SpawnGate.writingExecutable { () throws(Errno) in
            let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
            guard output >= 0 else { throw Errno.current }
            var failure = copyAll(from: input, to: output)
            if failure == nil && fchmod(output, 0o755) != 0 { failure = .current }
            if failure == nil && fsync(output) != 0 { failure = .current }
            if close(output) != 0 && failure == nil { failure = .current }
            if let failure {
                _ = unlink(destination)
                throw failure
            }
        }
    }

    /// Copies what remains of `input` to `output`; the errno of the first failure, nil when all went.
    private static func copyAll(from input: Int32, to output: Int32) -> Errno? {
        let capacity = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(input, buffer, capacity)
            if count < 0 {
                if errno == EINTR { continue }
                return .current
            }
            if count == 0 { return nil }
            var written = 0
            while written < count {
                let step = write(output, buffer + written, count - written)
                if step < 0 {
                    if errno == EINTR { continue }
                    return .current
                }
                written += step
            }
        }
    }
}
