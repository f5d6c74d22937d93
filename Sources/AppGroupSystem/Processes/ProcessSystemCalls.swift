import CAppGroupSys
import Foundation

/// The system calls the simulated device makes on the processes of its targets:
/// signals, the lifecycle channel's socket pair and its reads and writes, and the
/// `/proc` files it reads a process's descriptors, locks and memory from. None
/// touches a file of a container, so none goes through `FaultInjection`.
package enum ProcessSystemCalls {
    /// Sends `signal` to process `pid` (`kill`).
    package static func send(_ signal: Int32, to pid: pid_t) throws(Errno) {
        guard kill(pid, signal) == 0 else { throw Errno.current }
    }

    /// A connected pair of local stream sockets, close-on-exec (`socketpair`).
    package static func socketPair() throws(Errno) -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        guard agc_socket_pair(&fds) == 0 else { throw Errno.current }
        return (fds[0], fds[1])
    }

    /// Reads what is there on `fd`, blocking until something is (`read`, retried
    /// on EINTR); empty at the end of the stream or on an error.
    package static func readSome(_ fd: Int32, maximum: Int = 4096) -> Data {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, maximum) }
            if count < 0 && errno == EINTR { continue }
            return count > 0 ? Data(buffer[0..<count]) : Data()
        }
    }

    /// Writes all of `data` to the socket `fd` (`send` with MSG_NOSIGNAL, so a
    /// peer that ended is an error, not a SIGPIPE).
    package static func sendAll(_ data: Data, to fd: Int32) throws(Errno) {
        var sent = 0
        let bytes = [UInt8](data)
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Errno.current
            }
            sent += count
        }
    }

    /// Shuts the socket `fd` down both ways (`shutdown`), waking a reader blocked on it.
    package static func shutdownSocket(_ fd: Int32) { _ = shutdown(fd, Int32(SHUT_RDWR)) }

    /// Where the link `path` points (`readlink`), nil when it is not a link or is gone.
    package static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let count = readlink(path, &buffer, 4096)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The names in directory `path` (`opendir`, `readdir`), empty when it cannot be read.
    package static func names(in path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = String(decoding: SystemCalls.entryName(entry), as: UTF8.self)
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The text of a `/proc` file (`open`, `read`), nil when it cannot be read.
    package static func procText(_ path: String, limit: Int = 1 << 22) -> String? {
        guard let data = try? SandboxSystemCalls.readRegularFile(path, limit: limit) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Writes `text` to the existing file `path` (`open`, `write`): a cgroup's control file.
    package static func writeControlFile(_ path: String, _ text: String) throws(Errno) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Errno.current }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress, bytes.count) }
        guard count == bytes.count else { throw count < 0 ? Errno.current : Errno(rawValue: EIO) }
    }

    /// Makes directory `path` (`mkdir`, mode 0755).
    package static func makeDirectory(_ path: String) throws(Errno) {
        guard mkdir(path, 0o755) == 0 else { throw Errno.current }
    }

    /// Removes the empty directory `path` (`rmdir`): a cgroup with no process left.
    package static func removeDirectory(_ path: String) throws(Errno) {
        guard rmdir(path) == 0 else { throw Errno.current }
    }

    /// The longest line a target's listener takes from the device (its buffer).
    package static let lifecycleLineLimit = Int(AGC_LIFECYCLE_LINE_LIMIT)

    /// The target side: whether this process listens on a lifecycle channel.
    package static var lifecycleListening: Bool { agc_lifecycle_listening() != 0 }

    /// The target side: whether the calling thread is the one reading the channel.
    package static var onLifecycleListenerThread: Bool { agc_lifecycle_on_listener_thread() != 0 }

    /// The target side: sends one line to the device on the lifecycle channel.
    package static func sendLifecycleLine(_ line: String) throws(Errno) {
        guard agc_lifecycle_send(line) == 0 else { throw Errno.current }
    }
}

extension ProcessSystemCalls {
    /// At most `maximum` bytes from the start of the regular file at `path` (`open`
    /// with O_NONBLOCK and O_NOFOLLOW, `fstat`, `pread`): nil for anything else, so
    /// a FIFO or a link a target planted is never waited on or followed.
    package static func head(of path: String, maximum: Int) -> Data? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        var buffer = [UInt8](repeating: 0, count: max(maximum, 0))
        let read = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        return read >= 0 ? Data(buffer.prefix(read)) : nil
    }

    /// Exactly the first `count` bytes of the regular file at `path`, read as
    /// ``head(of:maximum:)`` reads; nil for a shorter file or anything else.
    package static func prefix(of path: String, count: Int) -> Data? {
        guard let head = head(of: path, maximum: count), head.count == count else { return nil }
        return head
    }
}
