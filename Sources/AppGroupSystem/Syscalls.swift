#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CAppGroupSys

// The raw system calls: every call the package makes to the kernel is one of these
// functions, and nothing else in the package names a libc file function. Each
// calls its C function once and returns what it returned, errno and all (no
// retry, no policy: those are RetryOnInterrupt.swift and Sys above it). In debug
// builds each asks FaultInjection first, inside the call, so a test can fail any
// of them with any errno (EINTR too) and trace them; a release build compiles the
// bare call. `path` names the file concerned, for that hook only.

#if ENABLE_MOCKING
/// A failure injected in place of a call: errno set, the call's failure value returned.
@inline(__always)
private func injected<R>(_ code: Errno, _ failure: R) -> R {
    errno = code.rawValue
    return failure
}
#endif

/// open(2).
func system_open(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t, path name: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.open, name) { return injected(code, -1) }
    #endif
    return open(path, flags, mode)
}

/// openat(2).
func system_openat(_ directory: Int32, _ name: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.openat, path) { return injected(code, -1) }
    #endif
    return openat(directory, name, flags, mode)
}

/// openat2(2) resolving beneath `directory` and following no link (agc_open_beneath).
func system_open_beneath(_ directory: Int32, _ relative: UnsafePointer<CChar>, _ flags: Int32, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.openat, path) { return injected(code, -1) }
    #endif
    return agc_open_beneath(directory, relative, flags)
}

/// close(2).
func system_close(_ fd: Int32) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.close, "") { return injected(code, -1) }
    #endif
    return close(fd)
}

/// read(2).
func system_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, path: String) -> Int {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.read, path) { return injected(code, -1) }
    #endif
    return read(fd, buffer, count)
}

/// write(2).
func system_write(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, path: String) -> Int {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.write, path) { return injected(code, -1) }
    #endif
    return write(fd, buffer, count)
}

/// pwrite(2).
func system_pwrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, _ offset: off_t, path: String) -> Int {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.pwrite, path) { return injected(code, -1) }
    #endif
    return pwrite(fd, buffer, count, offset)
}

/// fsync(2).
func system_fsync(_ fd: Int32, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.fsync, path) { return injected(code, -1) }
    #endif
    return fsync(fd)
}

/// fdatasync(2) (fsync(2) where there is none).
func system_fdatasync(_ fd: Int32, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.fdatasync, path) { return injected(code, -1) }
    #endif
    #if os(Linux)
    return fdatasync(fd)
    #else
    return fsync(fd)
    #endif
}

/// rename(2).
func system_rename(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.rename, path) { return injected(code, -1) }
    #endif
    return rename(from, to)
}

/// renameat(2).
func system_renameat(_ fromDirectory: Int32, _ from: UnsafePointer<CChar>, _ toDirectory: Int32, _ to: UnsafePointer<CChar>, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.renameat, path) { return injected(code, -1) }
    #endif
    return renameat(fromDirectory, from, toDirectory, to)
}

/// link(2).
func system_link(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.link, path) { return injected(code, -1) }
    #endif
    return link(from, to)
}

/// unlink(2).
func system_unlink(_ path: UnsafePointer<CChar>, path name: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.unlink, name) { return injected(code, -1) }
    #endif
    return unlink(path)
}

/// unlinkat(2).
func system_unlinkat(_ directory: Int32, _ name: UnsafePointer<CChar>, _ flags: Int32, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.unlinkat, path) { return injected(code, -1) }
    #endif
    return unlinkat(directory, name, flags)
}

/// rmdir(2).
func system_rmdir(_ path: UnsafePointer<CChar>, path name: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.rmdir, name) { return injected(code, -1) }
    #endif
    return rmdir(path)
}

/// mkdir(2).
func system_mkdir(_ path: UnsafePointer<CChar>, _ mode: mode_t, path name: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.mkdir, name) { return injected(code, -1) }
    #endif
    return mkdir(path, mode)
}

/// mkdirat(2).
func system_mkdirat(_ directory: Int32, _ name: UnsafePointer<CChar>, _ mode: mode_t, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.mkdir, path) { return injected(code, -1) }
    #endif
    return mkdirat(directory, name, mode)
}

/// chmod(2).
func system_chmod(_ path: UnsafePointer<CChar>, _ mode: mode_t, path name: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.chmod, name) { return injected(code, -1) }
    #endif
    return chmod(path, mode)
}

/// fchmod(2).
func system_fchmod(_ fd: Int32, _ mode: mode_t, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.fchmod, path) { return injected(code, -1) }
    #endif
    return fchmod(fd, mode)
}

/// stat(2).
func system_stat(_ path: UnsafePointer<CChar>, _ status: inout stat, path name: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.stat, name) { return injected(code, -1) }
    #endif
    return stat(path, &status)
}

/// lstat(2).
func system_lstat(_ path: UnsafePointer<CChar>, _ status: inout stat, path name: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.lstat, name) { return injected(code, -1) }
    #endif
    return lstat(path, &status)
}

/// readlink(2).
func system_readlink(_ path: UnsafePointer<CChar>, _ buffer: UnsafeMutablePointer<CChar>, _ size: Int, path name: String) -> Int {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.readlink, name) { return injected(code, -1) }
    #endif
    return readlink(path, buffer, size)
}

/// fstat(2).
func system_fstat(_ fd: Int32, _ status: inout stat, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.fstat, path) { return injected(code, -1) }
    #endif
    return fstat(fd, &status)
}

/// fstatat(2).
func system_fstatat(_ directory: Int32, _ name: UnsafePointer<CChar>, _ status: inout stat, _ flags: Int32, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.fstatat, path) { return injected(code, -1) }
    #endif
    return fstatat(directory, name, &status, flags)
}

/// statx(2) asking for no timestamps (agc_statx_untimed, CAppGroupSys).
func system_statx_untimed(_ directory: Int32, _ name: UnsafePointer<CChar>, _ flags: Int32, _ status: inout stat, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.statx, path) { return injected(code, -1) }
    #endif
    return agc_statx_untimed(directory, name, flags, &status)
}

/// opendir(3).
func system_opendir(_ path: UnsafePointer<CChar>, path name: String) -> OpaquePointer? {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.opendir, name) { return injected(code, nil) }
    #endif
    return opendir(path)
}

/// fdopendir(3): the stream owns `fd` from here on.
func system_fdopendir(_ fd: Int32, path: String) -> OpaquePointer? {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.fdopendir, path) { return injected(code, nil) }
    #endif
    return fdopendir(fd)
}

/// readdir(3): nil at the end (errno 0) or on an error (errno set).
func system_readdir(_ directory: OpaquePointer, path: String) -> UnsafeMutablePointer<dirent>? {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.readdir, path) { return injected(code, nil) }
    #endif
    errno = 0 // readdir leaves errno alone at the end: 0 then tells the end from an error
    return readdir(directory)
}

/// closedir(3).
func system_closedir(_ directory: OpaquePointer) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.closedir, "") { return injected(code, -1) }
    #endif
    return closedir(directory)
}

/// fcntl(F_DUPFD_CLOEXEC): a duplicate of `fd`, closed on exec.
func system_dupCloexec(_ fd: Int32, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.dup, path) { return injected(code, -1) }
    #endif
    return fcntl(fd, F_DUPFD_CLOEXEC, 0)
}

/// pipe(2).
func system_pipe(_ fds: UnsafeMutablePointer<Int32>) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.pipe, "") { return injected(code, -1) }
    #endif
    return pipe(fds)
}

/// fcntl(2) with an integer argument.
func system_fcntl(_ fd: Int32, _ command: Int32, _ argument: Int32) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.fcntl, "") { return injected(code, -1) }
    #endif
    return fcntl(fd, command, argument)
}

/// poll(2).
func system_poll(_ fds: UnsafeMutablePointer<pollfd>, _ count: nfds_t, _ timeout: Int32) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.poll, "") { return injected(code, -1) }
    #endif
    return poll(fds, count, timeout)
}

/// kill(2).
func system_kill(_ pid: pid_t, _ signal: Int32) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.kill, "") { return injected(code, -1) }
    #endif
    return kill(pid, signal)
}
#if os(Linux)
/// inotify_init1(2).
func system_inotify_init1(_ flags: Int32) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.inotify_init1, "") { return injected(code, -1) }
    #endif
    return inotify_init1(flags)
}

/// inotify_add_watch(2).
func system_inotify_add_watch(_ fd: Int32, _ path: UnsafePointer<CChar>, _ mask: UInt32, path name: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.inotify_add_watch, name) { return injected(code, -1) }
    #endif
    return inotify_add_watch(fd, path, mask)
}
#endif

/// agc_lock (CAppGroupSys): fcntl(F_OFD_SETLK / F_OFD_SETLKW) on Linux, flock(2)
/// elsewhere. A plan sees taking a lock as `lock` and releasing it as `unlock`.
func system_lock(_ fd: Int32, _ mode: Int32, wait: Bool, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(mode == Int32(AGC_LOCK_UNLOCK) ? .unlock : .lock, path) { return injected(code, -1) }
    #endif
    return agc_lock(fd, mode, wait ? 1 : 0)
}

/// getrlimit(2) of RLIMIT_NOFILE: the soft limit on open descriptors (nil when
/// the call fails). A query of the process's own limit, so it has no hook.
func system_open_file_limit() -> UInt64? {
    var limit = rlimit()
    #if canImport(Glibc)
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
    #else
    guard getrlimit(RLIMIT_NOFILE, &limit) == 0 else { return nil }
    #endif
    return UInt64(limit.rlim_cur)
}

/// geteuid(2). It cannot fail, so it has no hook.
func system_geteuid() -> uid_t { geteuid() }

/// getpwuid_r(3): `pw_dir` of `user`, nil when there is no entry. A library
/// lookup, not a system call on a file the package owns, so it has no hook.
func system_home_directory(_ user: uid_t) -> String? {
    var size = 4096
    while size <= 1 << 20 {
        // The strings of the entry live in the buffer: they are read inside.
        var buffer = [CChar](repeating: 0, count: size)
        let result: (code: Int32, home: String?) = buffer.withUnsafeMutableBufferPointer { storage in
            guard let base = storage.baseAddress else { return (ENOMEM, nil) }
            var entry = passwd()
            var found: UnsafeMutablePointer<passwd>?
            let code = getpwuid_r(user, &entry, base, storage.count, &found)
            guard code == 0, found != nil, let home = entry.pw_dir else { return (code, nil) }
            return (code, String(cString: home))
        }
        if result.code == ERANGE { size *= 4; continue }
        guard let home = result.home, !home.isEmpty else { return nil }
        return home
    }
    return nil
}

/// agc_rename_noreplace (CAppGroupSys): renameat2(RENAME_NOREPLACE) within one
/// directory. A plan sees it as `renameat`.
func system_renameat_noreplace(_ directory: Int32, _ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.renameat, path) { return injected(code, -1) }
    #endif
    return agc_rename_noreplace(directory, from, to)
}

/// linkat(2) within one directory, never following a link at `from`. A plan sees it as `link`.
func system_linkat(_ directory: Int32, _ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.link, path) { return injected(code, -1) }
    #endif
    return linkat(directory, from, directory, to, 0)
}

/// pread(2). A plan sees it as `read`.
func system_pread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: off_t, path: String) -> Int {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.read, path) { return injected(code, -1) }
    #endif
    return pread(fd, buffer, count, offset)
}


/// mmap(2) of a whole file, shared, readable and writable.
func system_mmap_shared(_ fd: Int32, _ length: Int, path: String) -> UnsafeMutableRawPointer? {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.mmap, path) { return injected(code, MAP_FAILED) }
    #endif
    return mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
}

/// mmap(2) of a whole file over an existing mapping (MAP_FIXED), shared,
/// readable and writable (agc_map_shared_at). A plan sees it as `mmap`.
func system_mmap_shared_at(_ base: UnsafeMutableRawPointer, _ length: Int, _ fd: Int32, path: String) -> UnsafeMutableRawPointer? {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.mmap, path) { return injected(code, MAP_FAILED) }
    #endif
    return agc_map_shared_at(base, length, fd)
}

/// sigaction(2) of the SIGBUS guard, and the range it guards (agc_guard_mapping).
func system_guard_mapping(_ base: UnsafeMutableRawPointer, _ length: Int) -> Int32 {
    agc_guard_mapping(base, length)
}

/// Forgets a guarded range (agc_unguard_mapping); no system call.
func system_unguard_mapping(_ slot: Int32) {
    agc_unguard_mapping(slot)
}

/// Whether a guarded range faulted since the last look (agc_guard_take_fault); no system call.
func system_guard_take_fault(_ slot: Int32) -> Bool {
    agc_guard_take_fault(slot) != 0
}

/// munmap(2).
func system_munmap(_ address: UnsafeMutableRawPointer, _ length: Int) -> Int32 {
    munmap(address, length)
}

/// ftruncate(2).
func system_ftruncate(_ fd: Int32, _ length: off_t, path: String) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.ftruncate, path) { return injected(code, -1) }
    #endif
    return ftruncate(fd, length)
}

/// futex(FUTEX_WAIT) on a word of a shared mapping (agc_futex_wait).
func system_futex_wait(_ word: UnsafeMutablePointer<UInt32>, _ expected: UInt32, _ nanoseconds: Int64) -> Int32 {
    #if ENABLE_MOCKING
    if let code = FaultInjection.intercept(.futex, "") { return injected(code, -1) }
    #endif
    return agc_futex_wait(word, expected, nanoseconds)
}

/// futex(FUTEX_WAKE) on a word of a shared mapping (agc_futex_wake). Not
/// intercepted: a post's hot path, and a wake cannot fail on a valid mapping.
func system_futex_wake(_ word: UnsafeMutablePointer<UInt32>, _ count: Int32) -> Int32 {
    agc_futex_wake(word, count)
}
