#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CAppGroupSys
import Foundation

/// The system calls of the simulated device's sandbox and launches (AppGroupSimulation
/// uses them): Landlock's rulesets, the spawn that restricts a child before it
/// runs its target, and the few file calls around them. Each wrapper names the C
/// function it calls.
package enum SandboxSystemCalls {
    /// Landlock's filesystem access rights (`LANDLOCK_ACCESS_FS_*`), by the ABI
    /// version that introduced them.
    package struct Access: OptionSet, Hashable, Sendable {
        package let rawValue: UInt64
        package init(rawValue: UInt64) { self.rawValue = rawValue }
        package static let execute = Access(rawValue: 1 << 0)
        package static let writeFile = Access(rawValue: 1 << 1)
        package static let readFile = Access(rawValue: 1 << 2)
        package static let readDirectory = Access(rawValue: 1 << 3)
        package static let removeDirectory = Access(rawValue: 1 << 4)
        package static let removeFile = Access(rawValue: 1 << 5)
        package static let makeCharacterDevice = Access(rawValue: 1 << 6)
        package static let makeDirectory = Access(rawValue: 1 << 7)
        package static let makeRegular = Access(rawValue: 1 << 8)
        package static let makeSocket = Access(rawValue: 1 << 9)
        package static let makeFIFO = Access(rawValue: 1 << 10)
        package static let makeBlockDevice = Access(rawValue: 1 << 11)
        package static let makeSymbolicLink = Access(rawValue: 1 << 12)
        /// ABI 2: link or rename a file into another directory.
        package static let refer = Access(rawValue: 1 << 13)
        /// ABI 3: truncate(2), ftruncate(2), open with O_TRUNC.
        package static let truncate = Access(rawValue: 1 << 14)
        /// ABI 5: ioctl(2) on a device file.
        package static let ioctlDevice = Access(rawValue: 1 << 15)

        /// The rights that apply to a file (a rule on a file may hold only these).
        package static let fileRights: Access = [.execute, .writeFile, .readFile, .truncate, .ioctlDevice]

        /// Every right the kernel of ABI `abi` knows (so handles, and so refuses unless allowed).
        package static func handled(byABI abi: Int) -> Access {
            var all = Access(rawValue: (1 << 13) - 1)
            if abi >= 2 { all.insert(.refer) }
            if abi >= 3 { all.insert(.truncate) }
            if abi >= 5 { all.insert(.ioctlDevice) }
            return all
        }
    }

    /// Landlock's ABI version, or the errno that says why it cannot be used
    /// (`landlock_create_ruleset` with `LANDLOCK_CREATE_RULESET_VERSION`).
    package static func landlockABI() -> Result<Int, Errno> {
        let abi = agc_landlock_abi()
        return abi > 0 ? .success(Int(abi)) : .failure(Errno(rawValue: -abi))
    }

    /// Plays a kernel without Landlock from now on in this process (`errno`), or
    /// asks the kernel again (nil).
    package static func forceLandlockUnavailable(_ errno: Errno?) {
        agc_landlock_force_unavailable(errno?.rawValue ?? 0)
    }

    /// A ruleset handling `handled` (`landlock_create_ruleset`); close it with ``close(_:)``.
    package static func createRuleset(handling handled: Access) throws(Errno) -> Int32 {
        let fd = agc_landlock_create_ruleset(handled.rawValue)
        guard fd >= 0 else { throw Errno(rawValue: -fd) }
        return fd
    }

    /// Allows `access` beneath `path` in `ruleset` (`open(O_PATH)`, `landlock_add_rule`).
    package static func allow(_ access: Access, beneath path: String, in ruleset: Int32) throws(Errno) {
        let result = agc_landlock_allow(ruleset, path, access.rawValue)
        guard result == 0 else { throw Errno(rawValue: -result) }
    }

    /// Whether `path` is a directory (`stat`); nil when it does not exist.
    package static func isDirectory(_ path: String) -> Bool? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// The device and inode of `path` (`stat`), nil when it cannot be read.
    package static func identity(of path: String) -> (device: UInt64, inode: UInt64)? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return (UInt64(st.st_dev), UInt64(st.st_ino))
    }

    /// Gives `source` the second name `destination` (`link`).
    package static func hardLink(_ source: String, _ destination: String) throws(Errno) {
        guard link(source, destination) == 0 else { throw Errno.current }
    }

    /// The bytes of the regular file at `path` (links followed), at most `limit`
    /// of them (`open` with O_NONBLOCK, `fstat`, `read`): a FIFO or a device is
    /// refused rather than waited on.
    package static func readRegularFile(_ path: String, limit: Int) throws(SystemError) -> Data {
        let fd = try SystemCalls.open(path, O_RDONLY | O_NONBLOCK)
        defer { SystemCalls.close(fd) }
        let st = try SystemCalls.fstat(fd, path: path)
        guard SystemCalls.isRegular(st) else { throw .notARegularFile(path: path, kind: SystemCalls.fileKind(st.st_mode)) }
        guard Int(st.st_size) <= limit else { throw .fileTooLarge(path: path, size: Int64(st.st_size), limit: Int64(limit)) }
        return try SystemCalls.readAll(fd, path: path, sizeHint: Int(st.st_size), limit: Int64(limit))
    }

    /// Gives `source` the name `destination`, replacing what was there in one step (`rename`).
    package static func replace(_ destination: String, with source: String) throws(Errno) {
        guard rename(source, destination) == 0 else { throw Errno.current }
    }

    /// `/dev/null` opened for reading (`open`), a child's standard input.
    package static func openNullDevice() throws(SystemError) -> Int32 {
        try SystemCalls.open("/dev/null", O_RDONLY)
    }

    /// Closes `fd` (`close`).
    package static func closeDescriptor(_ fd: Int32) { _ = close(fd) }

    /// Why a spawn failed: the step, and the errno of that step.
    package struct SpawnFailure: Error {
        package enum Step: String {
            case fork, descriptors, directory, noNewPrivileges = "no_new_privs", restrict = "landlock_restrict_self", exec = "execve"
            case metadata = "seccomp (the metadata filter)"
        }
        package let step: Step
        package let errno: Errno
    }

    /// Starts `executable` (vfork, then in the child: dup2 of the three streams,
    /// chdir, `prctl(PR_SET_NO_NEW_PRIVS)` and `landlock_restrict_self` when
    /// `ruleset` is given, `channel` to descriptor 3 when given, close_range,
    /// execve). Returns the child's pid; the caller reaps it.
    /// `metadata`: how the child's changes to file metadata are guarded (see
    /// ``MetadataGuard``), and the directories beneath which a supervised change is
    /// allowed; only with a `ruleset`.
    package static func spawn(_ executable: String, arguments: [String], environment: [String: String], directory: String?,
                      input: Int32, output: Int32, error: Int32, channel: Int32? = nil, ruleset: Int32?,
                      restrictFlags: UInt32, metadata: (guard: MetadataGuard, writable: [String])? = nil) throws(SpawnFailure) -> pid_t {
        let argv = CStrings(arguments)
        let envp = CStrings(environment.map { "\($0.key)=\($0.value)" }.sorted())
        defer { argv.release(); envp.release() }
        let mode = ruleset == nil ? MetadataGuard.none : (metadata?.guard ?? .none)
        // The socket the child sends its filter's listener on.
        var listenerSocket: [Int32] = [-1, -1]
        if mode == .supervised, agc_socket_pair(&listenerSocket) != 0 {
            throw SpawnFailure(step: .metadata, errno: Errno.current)
        }
        defer { for fd in listenerSocket where fd >= 0 { _ = close(fd) } }
        var step: Int32 = 0
        let pid = executable.withCString { path in
            if let directory {
                return directory.withCString { dir in
                    agc_spawn(path, argv.pointers, envp.pointers, dir, input, output, error, channel ?? -1, ruleset ?? -1, restrictFlags,
                              mode.rawValue, listenerSocket[1], &step)
                }
            }
            return agc_spawn(path, argv.pointers, envp.pointers, nil, input, output, error, channel ?? -1, ruleset ?? -1, restrictFlags,
                             mode.rawValue, listenerSocket[1], &step)
        }
        if pid > 0, mode == .supervised {
            try superviseMetadata(of: pid, socket: listenerSocket[0], writable: metadata?.writable ?? [])
        }
        guard pid > 0 else {
            let code = Errno.current
            let named: [Int32: SpawnFailure.Step] = [
                Int32(AGC_SPAWN_FAILED_DESCRIPTORS): .descriptors, Int32(AGC_SPAWN_FAILED_DIRECTORY): .directory,
                Int32(AGC_SPAWN_FAILED_NO_NEW_PRIVS): .noNewPrivileges, Int32(AGC_SPAWN_FAILED_RESTRICT): .restrict,
                Int32(AGC_SPAWN_FAILED_EXEC): .exec, Int32(AGC_SPAWN_FAILED_METADATA): .metadata,
            ]
            throw SpawnFailure(step: named[step] ?? .fork, errno: code)
        }
        return pid
    }

    /// Takes the listener child `pid` sent on `socket` and starts its supervisor
    /// (`agc_metadata_receive_listener`, `agc_metadata_supervise`). Without one, the
    /// child's first metadata call would wait forever: it is killed and reaped.
    private static func superviseMetadata(of pid: pid_t, socket: Int32, writable: [String]) throws(SpawnFailure) {
        var result = agc_metadata_receive_listener(socket)
        if result >= 0 {
            let roots = CStrings(writable)
            defer { roots.release() }
            let constRoots = UnsafeRawPointer(roots.pointers).assumingMemoryBound(to: UnsafePointer<CChar>?.self)
            result = agc_metadata_supervise(result, constRoots, Int32(writable.count))
        }
        guard result < 0 else { return }
        _ = kill(pid, SIGKILL)
        reap(pid)
        throw SpawnFailure(step: .metadata, errno: Errno(rawValue: -result))
    }

    /// How a sandboxed target's changes to file metadata (mode, owner, times,
    /// extended attributes: what Landlock does not restrict) are guarded.
    package enum MetadataGuard: Int32, Sendable, Hashable {
        /// Not at all: the kernel has no seccomp filters.
        case none = 0
        /// Each call goes to a supervisor in this process, which performs it only
        /// beneath a directory the target may write (seccomp user notification).
        case supervised = 1
        /// Calls naming a path are refused; calls on an open descriptor run.
        case refused = 2
    }

    /// The best guard this kernel offers (`agc_metadata_available_mode`).
    package static func availableMetadataGuard() -> MetadataGuard {
        MetadataGuard(rawValue: agc_metadata_available_mode()) ?? .none
    }

    /// Reaps child `pid` (`waitpid`), once its end was learned without reaping.
    package static func reap(_ pid: pid_t) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// The directories of the shared libraries this process had mapped when first
    /// asked (`/proc/self/maps`): where the Swift runtime and the system's
    /// libraries are. Read once: the answer does not change that matters, and a
    /// read of the maps while other threads map and unmap was seen to come back short.
    package static func mappedLibraryDirectories() -> [String] { libraryDirectories }

    private static let libraryDirectories: [String] = {
        guard let data = try? readRegularFile("/proc/self/maps", limit: 64 << 20) else { return [] }
        var directories: Set<String> = []
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            guard path.contains(".so"), !path.hasSuffix(" (deleted)") else { continue }
            directories.insert((path as NSString).deletingLastPathComponent)
        }
        return directories.sorted()
    }()

    /// NUL-terminated C strings in a NULL-terminated array, freed by ``release()``.
    private struct CStrings {
        let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
        let count: Int

        init(_ strings: [String]) {
            count = strings.count
            pointers = .allocate(capacity: strings.count + 1)
            for (index, string) in strings.enumerated() { pointers[index] = strdup(string) }
            pointers[strings.count] = nil
        }

        func release() {
            for index in 0..<count { free(pointers[index]) }
            pointers.deallocate()
        }
    }
}
