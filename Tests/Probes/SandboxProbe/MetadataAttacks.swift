// The metadata calls a target may make, each straight to the kernel (Landlock does
// not restrict them; the device's metadata filter does): one line per call,
// `<call> ok` or `<call> errno <NAME>`.
import AppGroupSimulation
import CSandboxProbe
import Foundation
#if canImport(Glibc)
import Glibc

/// The owner the attacking calls give (nobody's).
enum Attack {
    static let owner: uid_t = 4242
    static let group: gid_t = 4243
}

func outcome(_ name: String, _ result: Int32) -> String {
    result == 0 ? "\(name) ok" : "\(name) errno \(Errno(rawValue: -result).name ?? String(-result))"
}

/// Every call that names `path`, or an O_PATH descriptor of it (Landlock does not
/// check O_PATH). `owner`: the owner to give.
func pathCalls(_ path: String, owner: (uid_t, gid_t)) -> [String] {
    (0..<csp_path_call_count()).map { call in
        outcome(String(cString: csp_path_call_name(call)), csp_path_call(call, path, owner.0, owner.1))
    }
}

/// Every call on a descriptor of `path` opened for reading (what Landlock allows
/// on a file the target may only read).
func descriptorCalls(_ path: String, owner: (uid_t, gid_t)) -> [String] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return ["open errno \(Errno.current.name ?? String(errno))"] }
    defer { close(fd) }
    return (0..<csp_descriptor_call_count()).map { call in
        outcome(String(cString: csp_descriptor_call_name(call)), csp_descriptor_call(call, fd, owner.0, owner.1))
    }
}

/// The owner of `path` as the kernel reports it (a call that must succeed keeps it).
func currentOwner(_ path: String) -> (uid_t, gid_t) {
    var status = stat()
    guard lstat(path, &status) == 0 else { return (getuid(), getgid()) }
    return (status.st_uid, status.st_gid)
}

/// What the racing threads share: a stop flag and the path buffer handed to the
/// kernel while another thread rewrites it.
final class RaceState: @unchecked Sendable {
    let lock = NSLock()
    var stopped = false
    let buffer: UnsafeMutablePointer<CChar>
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        buffer = .allocate(capacity: capacity)
        buffer.initialize(repeating: 0, count: capacity)
    }

    var isStopped: Bool { lock.withLock { stopped } }
    func stop() { lock.withLock { stopped = true } }

    /// Rewrites the buffer byte by byte (a reader may see a mix: that is the point).
    func place(_ string: String) {
        let bytes = Array(string.utf8)
        for index in 0..<capacity { buffer[index] = index < bytes.count ? CChar(bitPattern: bytes[index]) : 0 }
    }
}

/// Races the kernel and the device: one thread points `link` (in the target's own
/// container) at its own file and at `victim` in turn, another rewrites the path
/// buffer handed to chmod, setxattr, utimes and chown, `rounds` times each.
/// Prints how many calls succeeded and how many were refused.
func race(own: String, victim: String, link: String, rounds: Int) -> [String] {
    unlink(link)
    guard symlink(own, link) == 0 else { return ["setup errno \(Errno.current.name ?? String(errno))"] }
    let state = RaceState(capacity: max(own.utf8.count, victim.utf8.count) + 1)
    state.place(own)
    let swapper = Thread {
        var flip = false
        let next = link + ".next"
        while !state.isStopped {
            unlink(next)
            _ = symlink(flip ? own : victim, next)
            _ = rename(next, link)
            flip.toggle()
        }
    }
    let rewriter = Thread {
        var flip = false
        while !state.isStopped {
            state.place(flip ? own : victim)
            flip.toggle()
        }
    }
    swapper.start()
    rewriter.start()
    var succeeded = 0, refused = 0, other = 0
    func count(_ result: Int32) {
        if result == 0 { succeeded += 1 } else if result == -EACCES || result == -EPERM { refused += 1 } else { other += 1 }
    }
    // chmod, utimes, chown and setxattr (the numbers of csp_path_call).
    let calls: [Int32] = [0, 10, 5, 15]
    for _ in 0..<rounds {
        for call in calls {
            count(csp_path_call(call, link, Attack.owner, Attack.group))
            count(csp_path_call(call, state.buffer, Attack.owner, Attack.group))
        }
    }
    state.stop()
    while swapper.isExecuting || rewriter.isExecuting { usleep(1000) }
    return ["race succeeded \(succeeded) refused \(refused) other \(other)"]
}
#endif
