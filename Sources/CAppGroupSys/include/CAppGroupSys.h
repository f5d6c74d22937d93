#ifndef CAPPGROUPSYS_H
#define CAPPGROUPSYS_H

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

/// Names the calling thread for the kernel (pthread_setname_np on Linux, where a
/// name holds 15 bytes: a longer one is cut, at a UTF-8 boundary). Returns 0, or
/// an error number. Foundation's `Thread.name` does not always reach the kernel
/// on Linux, so tools (ps, gdb, /proc) would show the creator's name.
int agc_name_thread(const char *name);

#endif
