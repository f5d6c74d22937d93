import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child forked from this process that keeps copies of some of its descriptors
/// until ``release()``: what every child of a multithreaded process is between its
/// fork and its exec (Foundation's `Process`, posix_spawn), held still. A copy
/// shares its open file description, and with it the description's OFD lock, so
/// a lock let go only by closing this process's descriptor stays held by the child.
///
/// The child runs nothing but close(2), read(2) and _exit(2), all safe after a
/// fork: it closes every descriptor but those kept (the pipe's write end too, so
/// it sees EOF), then waits for EOF on the pipe.
package final class ForkedChild {
    package let pid: pid_t
    private var releaseEnd: Int32

    /// Forks the child, keeping only the descriptors (above the standard three) open
    /// on a path under `directory`.
    package init(keepingDescriptorsUnder directory: String) throws {
        let keep = try Self.descriptors { $0.hasPrefix(directory + "/") }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        // Which descriptors the child closes, worked out before the fork: after it
        // the child must not allocate nor reach the runtime (another thread may
        // have held one of its locks at the fork).
        let limit = Int32(min(sysconf(Int32(_SC_OPEN_MAX)), 65_536))
        let closing = UnsafeMutablePointer<Bool>.allocate(capacity: Int(limit))
        defer { closing.deallocate() }
        closing.initialize(repeating: true, count: Int(limit))
        for fd in keep + [0, 1, 2, readEnd] where fd < limit { closing[Int(fd)] = false }
        let child = fork()
        if child == 0 {
            var fd: Int32 = 3
            while fd < limit {
                if closing[Int(fd)] { close(fd) }
                fd += 1
            }
            var byte: UInt8 = 0
            while read(readEnd, &byte, 1) != 0 {}
            _exit(0)
        }
        let forkError = errno
        close(readEnd)
        guard child > 0 else {
            close(writeEnd)
            throw POSIXError(.init(rawValue: forkError) ?? .EIO)
        }
        pid = child
        releaseEnd = writeEnd
    }

    deinit { release() }

    /// Lets the child end (EOF on its pipe) and reaps it; SIGKILL after 30 seconds.
    package func release() {
        guard releaseEnd >= 0 else { return }
        close(releaseEnd)
        releaseEnd = -1
        let deadline = Date().addingTimeInterval(30)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline { kill(pid, SIGKILL) }
            usleep(1000)
        }
    }

    /// This process's descriptors whose target `accept`s.
    private static func descriptors(_ accept: (String) -> Bool) throws -> [Int32] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { name in
            guard let fd = Int32(name), fd > 2,
                  let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name),
                  accept(target) else { return nil }
            return fd
        }
    }
}
