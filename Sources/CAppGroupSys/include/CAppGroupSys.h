#ifndef CAPPGROUPSYS_H
#define CAPPGROUPSYS_H

#include <sys/stat.h>

/// statx(2) of `name` in `directory` asking for no timestamps, filled into `status`
/// (its times left zero), so that the file's next write keeps a coarse time (see
/// stat.c). `flags`: AT_SYMLINK_NOFOLLOW, or AT_EMPTY_PATH with name "" for the
/// descriptor itself. -1 and errno on failure; ENOSYS where there is no statx.
int agc_statx_untimed(int directory, const char *name, int flags, struct stat *status);

/// Lock modes understood by agc_lock.
enum {
    AGC_LOCK_UNLOCK = 0,
    AGC_LOCK_SHARED = 1,
    AGC_LOCK_EXCLUSIVE = 2,
};

/// Takes, or releases, a whole-file advisory lock owned by the open file
/// description behind `fd` (Linux: fcntl F_OFD_SETLK / F_OFD_SETLKW with
/// l_start 0, l_len 0, l_pid 0; elsewhere: flock).
/// Returns 0, or -1 with errno set (EAGAIN/EWOULDBLOCK/EACCES when busy and
/// `wait` is 0; EINTR when a signal interrupted a wait). Never retries.
int agc_lock(int fd, int mode, int wait);

/// 1 when agc_lock uses open-file-description fcntl locks, 0 when flock.
int agc_lock_uses_ofd(void);

/// Opens `path`, relative to the directory `directory`, without following a
/// symbolic link at any component and without leaving `directory` (Linux
/// openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS; with AT_FDCWD, an
/// absolute `path` and RESOLVE_NO_SYMLINKS alone). Returns the
/// descriptor, or -1 with errno set: ELOOP for a link on the way, ENOSYS where
/// the kernel (or a seccomp filter) lacks openat2, and elsewhere than Linux.
int agc_open_beneath(int directory, const char *path, int flags);

/// renameat2(directory, from, directory, to, RENAME_NOREPLACE): gives `from` the
/// name `to` in one step, failing with EEXIST when `to` exists (rename(2) would
/// replace it). -1 with EINVAL or ENOSYS where the file system or the kernel
/// cannot (the caller falls back to link and unlink).
int agc_rename_noreplace(int directory, const char *from, const char *to);

/// Waits until child `pid` has ended, without reaping it (waitid with WEXITED |
/// WNOWAIT; retried on EINTR). Sets `killed` to 1 when a signal ended it (then
/// `status` is the signal), else 0 (then `status` is the exit status). Returns 0,
/// or -1 with errno set (ECHILD when it was already reaped).
int agc_wait_exit(int pid, int *killed, int *status);

/// Makes the calling process the reaper of its descendants' orphans
/// (prctl PR_SET_CHILD_SUBREAPER): a process whose parent ends becomes its child,
/// to be ended and reaped by it. Returns 0, or -1 with errno set.
int agc_become_subreaper(void);

/// Reaps child `pid` if it has ended (waitpid with WNOHANG, retried on EINTR).
/// Returns 1 when reaped, 0 while it runs, -1 with errno set (ECHILD: not a child).
int agc_reap_if_ended(int pid);

/// Names the calling thread for the kernel (pthread_setname_np on Linux, where a
/// name holds 15 bytes: a longer one is cut, at a UTF-8 boundary). Returns 0, or
/// an error number. Foundation's `Thread.name` does not always reach the kernel
/// on Linux, so tools (ps, gdb, /proc) would show the creator's name.
int agc_name_thread(const char *name);

#include <stdint.h>
#include <sys/types.h>

/// The trace's on/off flag (see AppGroupSystem's Tracing.swift): set at load time
/// when the environment has a non-empty APPGROUP_TRACE, and by agc_trace_set.
/// Read with one relaxed atomic load, so that a traced site costs that load and a
/// branch when tracing is off.
extern int agc_trace_flag;

/// 1 when tracing is on (relaxed load of agc_trace_flag).
static inline int agc_trace_enabled(void) { return __atomic_load_n(&agc_trace_flag, __ATOMIC_RELAXED); }

/// Turns tracing on (1) or off (0) for the whole process.
void agc_trace_set(int on);

/// CLOCK_MONOTONIC in nanoseconds: one clock for every process of the machine,
/// so that the trace files of several processes line up.
uint64_t agc_monotonic_ns(void);

/// The calling thread's kernel id (gettid).
int agc_thread_id(void);

/// The exploring scheduler's flag (explore.c): set at load time when the
/// environment has a non-empty APPGROUP_EXPLORE (the exploration directory).
extern int agc_explore_flag;

/// 1 while this process asks the scheduler before each coordinated step.
static inline int agc_explore_enabled(void) { return __atomic_load_n(&agc_explore_flag, __ATOMIC_RELAXED); }

/// Asks the scheduler for a turn for `step` on `item` and waits for it (one step
/// at a time per process). 0 when granted; 1 when the process runs freely (not
/// exploring, or it gave up: the scheduler gone, or the deadline passed).
int agc_explore_step(const char *step, const char *item);

/// The scheduler's side listens with `agc_local_listen(directory, "scheduler", 128)`
/// and accepts with `agc_local_accept` (below).

/// Reads what is available on a connection: bytes read, 0 at its end (the
/// process closed it or ended), -1 with errno set (EAGAIN: nothing yet).
long agc_explore_receive(int fd, char *buffer, unsigned long capacity);

/// Grants the process at the other end of `fd` one step (one byte). 0, or -1 with errno set.
int agc_explore_grant(int fd);

/// Landlock's ABI version (1 and up), or minus an errno when Landlock cannot be
/// used: -ENOSYS for a kernel without it, -EOPNOTSUPP when it is built in but
/// disabled at boot. (landlock_create_ruleset with LANDLOCK_CREATE_RULESET_VERSION.)
int agc_landlock_abi(void);

/// Makes agc_landlock_abi answer -errno_value from now on (0: ask the kernel
/// again): how a test plays a kernel without Landlock.
void agc_landlock_force_unavailable(int errno_value);

/// A new Landlock ruleset that handles `handled_access_fs` (LANDLOCK_ACCESS_FS_*
/// bits): its descriptor (close-on-exec), or minus an errno.
/// (landlock_create_ruleset.)
int agc_landlock_create_ruleset(uint64_t handled_access_fs);

/// Allows `allowed_access` beneath `path` (a directory, or a file for file rights)
/// in `ruleset`. 0, or minus an errno (ENOENT when `path` is missing).
/// (open with O_PATH, then landlock_add_rule with LANDLOCK_RULE_PATH_BENEATH.)
int agc_landlock_allow(int ruleset, const char *path, uint64_t allowed_access);

/// The step of agc_spawn that failed.
enum {
    AGC_SPAWN_OK = 0,
    AGC_SPAWN_FAILED_FORK = 1,
    AGC_SPAWN_FAILED_DESCRIPTORS = 2,
    AGC_SPAWN_FAILED_DIRECTORY = 3,
    AGC_SPAWN_FAILED_NO_NEW_PRIVS = 4,
    AGC_SPAWN_FAILED_RESTRICT = 5,
    AGC_SPAWN_FAILED_EXEC = 6,
    AGC_SPAWN_FAILED_METADATA = 7,
};

/// Starts `path` with `argv` and `envp` as a child (vfork, then execve) whose
/// standard input, output and error are `input`, `output` and `error`, in a
/// process group of its own, in `directory` (NULL: this one), with no other
/// descriptor open but `channel` (when not -1), which becomes descriptor
/// AGC_LIFECYCLE_FD (3) of the child: the device's lifecycle channel. When `ruleset` is a Landlock ruleset (not -1) the child sets
/// no_new_privs and restricts itself with it (landlock_restrict_self with
/// `restrict_flags`) before execve, so the target's first instruction already
/// runs sandboxed; with a `metadata_mode` other than AGC_METADATA_NONE (and a
/// ruleset) it also installs the metadata filter (agc_spawn_child_metadata_filter,
/// its listener sent on `metadata_socket`). Returns the child's pid (the caller reaps it), or -1 with
/// errno set and `failed_step` naming the step (AGC_SPAWN_FAILED_*); a child that
/// failed before execve has been reaped.
pid_t agc_spawn(const char *path, char *const argv[], char *const envp[], const char *directory,
                int input, int output, int error, int channel, int ruleset, unsigned restrict_flags,
                int metadata_mode, int metadata_socket, int *failed_step);


/// How a spawned target's changes to file metadata (mode, owner, times, extended
/// attributes), which Landlock does not restrict, are guarded (metadata.c).
enum {
    /// Not at all (the kernel has no seccomp filters).
    AGC_METADATA_NONE = 0,
    /// Each call goes to a supervisor in the device's process (seccomp user
    /// notification), which performs it only beneath what the target may write.
    AGC_METADATA_SUPERVISED = 1,
    /// Calls that name a path are refused (EACCES); those on an open descriptor run.
    AGC_METADATA_REFUSED = 2,
};

/// The best guard this kernel offers (AGC_METADATA_*), or the one forced by
/// agc_metadata_force_mode. (seccomp SECCOMP_GET_ACTION_AVAIL, pidfd_open.)
int agc_metadata_available_mode(void);

/// Makes agc_metadata_available_mode answer `mode` from now on (-1: ask the
/// kernel again): how a test plays a kernel without user notification.
void agc_metadata_force_mode(int mode);

/// In a spawned child, between vfork and execve, after no_new_privs: installs the
/// metadata filter of `mode`; for AGC_METADATA_SUPERVISED, sends its listener over
/// `socket` (SCM_RIGHTS, never blocking) and closes it. 0, or -1 with errno set.
int agc_spawn_child_metadata_filter(int mode, int socket);

/// The device's side: the listener a child sent on `socket` (close-on-exec), or
/// minus an errno (EAGAIN when none came).
int agc_metadata_receive_listener(int socket);

/// Starts a thread that answers every notification of `listener` (which it takes
/// over, with its own descriptors of the `count` directories `roots`) until no
/// process uses the filter any more. 0, or minus an errno (the listener closed).
int agc_metadata_supervise(int listener, const char *const *roots, int count);

/// Atomic operations on a word of a shared mapping (signal.c).
uint32_t agc_atomic_load32(const uint32_t *word);
uint32_t agc_atomic_add32(uint32_t *word, uint32_t value);
uint32_t agc_atomic_sub32(uint32_t *word, uint32_t value);
uint64_t agc_atomic_load64(const uint64_t *word);
/// 1 when *word held `expected` and now holds `desired`, else 0.
int agc_atomic_cas64(uint64_t *word, uint64_t expected, uint64_t desired);
/// futex(FUTEX_WAIT) on a shared word for at most `timeout_ns` (relative);
/// 0 when woken, -1 with errno (EAGAIN: the word was not `expected`; ETIMEDOUT; EINTR).
int agc_futex_wait(uint32_t *word, uint32_t expected, int64_t timeout_ns);
/// futex(FUTEX_WAKE) of at most `count` waiters on a shared word; the number woken or -1.
int agc_futex_wake(uint32_t *word, int count);

/// Guards the shared mapping [base, base + length) (mapguard.c): a SIGBUS raised by
/// an access to it (its file was truncated by another process) replaces the whole
/// range with zero-filled private memory and flags it, instead of killing the
/// process. Other SIGBUS go to the handler installed before. The slot, or -1.
int agc_guard_mapping(void *base, size_t length);
/// Forgets a guarded range (before it is unmapped).
void agc_unguard_mapping(int slot);
/// 1 when the guarded range faulted since the last call (and clears the flag).
int agc_guard_take_fault(int slot);
/// mmap(2) of `fd` over [base, base + length), shared, readable and writable
/// (MAP_FIXED: replaces what is there); MAP_FAILED with errno on failure.
void *agc_map_shared_at(void *base, size_t length, int fd);

/// The descriptor a spawned target finds its lifecycle channel at (agc_spawn
/// puts it there; `APPGROUP_LIFECYCLE_FD` names it in the target's environment).
#define AGC_LIFECYCLE_FD 3

/// A connected pair of local stream sockets, both close-on-exec
/// (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC)). 0, or -1 with errno set.
int agc_socket_pair(int fds[2]);

/// The longest line (newline excluded) a target's listener takes from the device.
#define AGC_LIFECYCLE_LINE_LIMIT 65535

/// In a spawned target: sends `line` and a newline on the lifecycle channel
/// (one write under a mutex, so lines of several threads never mix). 0, or -1
/// with errno set (EBADF when the process has no channel).
int agc_lifecycle_send(const char *line);

/// 1 when this process was started with a lifecycle channel and listens on it.
int agc_lifecycle_listening(void);

/// 1 on the thread that reads the lifecycle channel (it delivers the device's
/// lines, so it cannot wait there for an answer to a request).
int agc_lifecycle_on_listener_thread(void);

/// Local stream sockets whose peer the kernel names (peer.c): the presenters'
/// requests between processes. A listening socket `name` in `directory`
/// (nonblocking, close-on-exec; whatever was at the name is removed first), or
/// -1 with errno set.
int agc_local_listen(const char *directory, const char *name, int backlog);

/// Accepts one waiting connection (nonblocking, close-on-exec) and sets `*pid`
/// to the connecting process as the kernel saw it (SO_PEERCRED): -1 with errno
/// EAGAIN when none waits.
int agc_local_accept(int listener, int *pid);

/// Connects to the socket `name` in `directory` (nonblocking, close-on-exec) and
/// sets `*pid` to the process that listens there as the kernel recorded it
/// (SO_PEERCRED). -1 with errno set (EAGAIN: its queue of connections is full).
int agc_local_connect(const char *directory, const char *name, int *pid);

/// Sends `length` bytes, and descriptor `passed` beside them when it is not -1
/// (SCM_RIGHTS); never blocks, never raises SIGPIPE. Bytes sent, or -1 with errno.
long agc_local_send(int fd, const void *bytes, unsigned long length, int passed);

/// Receives at most `capacity` bytes without blocking; `*passed` is the first
/// descriptor that came with them (close-on-exec) or -1; any other is closed.
/// Bytes read, 0 at the end of the stream, -1 with errno (EAGAIN: nothing yet).
long agc_local_receive(int fd, void *buffer, unsigned long capacity, int *passed);

/// The device and inode of `fd` when it is a directory opened for reading (not
/// O_PATH, which Landlock does not restrict): 0, or -1 with errno set.
int agc_local_readable_directory(int fd, uint64_t *device, uint64_t *inode);

/// open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC): a descriptor or -1 with errno.
int agc_local_open_directory(const char *path);

#endif
