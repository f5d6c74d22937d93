#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CAppGroupSys

/// Local stream sockets whose peer the kernel names (`SO_PEERCRED`), carrying a
/// descriptor beside the bytes (`SCM_RIGHTS`): how a process asks the file
/// presenters of another (CAppGroupSys's peer.c). Every socket is nonblocking
/// and close-on-exec; a send to a peer that ended is an error, never a SIGPIPE.
package enum LocalSockets {
    /// What one receive got.
    package enum Received {
        /// Bytes, and the descriptor that came with them (the caller closes it).
        case bytes([UInt8], passed: Int32?)
        /// Nothing yet.
        case nothing
        /// The peer closed its end (or ended), or the connection failed.
        case ended
    }

    /// A listening socket `name` in `directory` (`socket`, `bind`, `listen`);
    /// whatever was at the name is removed first (`unlinkat`).
    package static func listen(in directory: String, name: String, backlog: Int32) throws(Errno) -> Int32 {
        let fd = agc_local_listen(directory, name, backlog)
        guard fd >= 0 else { throw Errno.current }
        return fd
    }

    /// One waiting connection and its process as the kernel saw it (`accept4`,
    /// `SO_PEERCRED`); nil when none waits.
    package static func accept(_ listener: Int32) -> (fd: Int32, pid: pid_t)? {
        var pid: Int32 = 0
        let fd = agc_local_accept(listener, &pid)
        return fd >= 0 ? (fd, pid) : nil
    }

    /// A connection to the socket `name` in `directory` and the process that
    /// listens there, as the kernel recorded it (`connect`, `SO_PEERCRED`).
    /// - Throws: EAGAIN when its queue of connections is full; ECONNREFUSED when
    ///   nobody listens; ENOENT when there is no socket.
    package static func connect(in directory: String, name: String) throws(Errno) -> (fd: Int32, pid: pid_t) {
        var pid: Int32 = 0
        let fd = agc_local_connect(directory, name, &pid)
        guard fd >= 0 else { throw Errno.current }
        return (fd, pid)
    }

    /// Whether a connect failed because nobody listens at the name: no file
    /// there, a socket without a listener, or something else than a socket.
    package static func isNobodyListening(_ error: Errno) -> Bool {
        [ENOENT, ECONNREFUSED, ENOTSOCK, ENOTDIR].contains(error.rawValue)
    }

    /// Sends what fits of `bytes` without blocking, with `passed` beside them
    /// (`sendmsg`, `SCM_RIGHTS`). The count sent.
    package static func send(_ fd: Int32, _ bytes: [UInt8], passing passed: Int32? = nil) throws(Errno) -> Int {
        let sent = bytes.withUnsafeBytes { agc_local_send(fd, $0.baseAddress, UInt(bytes.count), passed ?? -1) }
        guard sent >= 0 else { throw Errno.current }
        return sent
    }

    /// Receives at most `capacity` bytes without blocking (`recvmsg`).
    package static func receive(_ fd: Int32, capacity: Int) -> Received {
        var buffer = [UInt8](repeating: 0, count: capacity)
        var passed: Int32 = -1
        let count = buffer.withUnsafeMutableBytes { agc_local_receive(fd, $0.baseAddress, UInt(capacity), &passed) }
        if count > 0 { return .bytes(Array(buffer.prefix(count)), passed: passed >= 0 ? passed : nil) }
        if passed >= 0 { SystemCalls.close(passed) }
        if count < 0, errno == EAGAIN { return .nothing }
        return .ended
    }

    /// Opens the directory `path` for reading (`open` with `O_RDONLY | O_DIRECTORY`),
    /// which a sandbox refuses outside what the process may read.
    package static func openDirectory(_ path: String) throws(Errno) -> Int32 {
        let fd = agc_local_open_directory(path)
        guard fd >= 0 else { throw Errno.current }
        return fd
    }

    /// The device and inode of `fd` when it is a directory opened for reading
    /// (`fcntl(F_GETFL)`, `fstat`); nil for anything else, an `O_PATH` descriptor included.
    package static func readableDirectory(_ fd: Int32) -> (device: UInt64, inode: UInt64)? {
        var device: UInt64 = 0
        var inode: UInt64 = 0
        return agc_local_readable_directory(fd, &device, &inode) == 0 ? (device, inode) : nil
    }
}
