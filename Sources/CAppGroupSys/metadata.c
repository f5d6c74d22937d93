// What Landlock does not cover: a sandboxed target's changes to the metadata of
// files (mode, owner, times, extended attributes). Landlock has no right for
// chmod, chown, utimensat or setxattr, so a target refused open() on another
// target's file could still change all four. A seccomp filter, installed in the
// spawned child beside its Landlock ruleset, sends each of those system calls to
// a supervisor thread in the device's process (user notification). The supervisor
// copies the call's arguments once out of the target's memory, resolves the path
// itself in the target's view (its working directory, its descriptors), and
// allows the call only when the object lies beneath a directory the target may
// write; it then performs the call itself on its own descriptor of that object and
// answers with the result. It never lets the target's own call continue: the path
// in the target's memory could name something else by then.
//
// Where the kernel lacks user notification, a plain filter refuses every call that
// names a path (EACCES) and lets those on an open descriptor through (opening is
// what Landlock checks).
#define _GNU_SOURCE
#include "CAppGroupSys.h"

#include <errno.h>
#include <stdint.h>

#ifdef __linux__

#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#define AGC_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AGC_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

// Numbers the C library's headers may predate (the same on every architecture).
#define AGC_NR_FCHMODAT2 452
#define AGC_NR_SETXATTRAT 463
#define AGC_NR_REMOVEXATTRAT 466
#define AGC_NR_PIDFD_OPEN 434
#define AGC_NR_PIDFD_GETFD 438
#define AGC_NR_OPENAT2 437

#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_GET_ACTION_AVAIL
#define SECCOMP_GET_ACTION_AVAIL 2
#endif
#ifndef SECCOMP_GET_NOTIF_SIZES
#define SECCOMP_GET_NOTIF_SIZES 3
#endif

// The ioctl flags a target may not set: on iOS an app cannot set them on another
// app's file either, and here nothing checks whose the file is.
#define AGC_FS_IOC_SETFLAGS 0x40086602u
#define AGC_FS_IOC32_SETFLAGS 0x40046602u
#define AGC_FS_IOC_FSSETXATTR 0x401c5820u

/// Longest path copied out of a target (PATH_MAX, its NUL included).
#define AGC_PATH_CAPACITY 4096
/// Longest attribute name (XATTR_NAME_MAX and its NUL) and value (XATTR_SIZE_MAX).
#define AGC_XATTR_NAME_CAPACITY 256
#define AGC_XATTR_VALUE_CAPACITY 65536

#if defined(AGC_AUDIT_ARCH)

// MARK: - The filter (in the spawned child)

struct program {
    struct sock_filter code[96];
    unsigned short length;
};

static void emit(struct program *program, struct sock_filter instruction) {
    if (program->length < sizeof program->code / sizeof program->code[0]) program->code[program->length++] = instruction;
}

/// `nr` answered with `action`.
static void emit_call(struct program *program, long nr, uint32_t action) {
    emit(program, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1));
    emit(program, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action));
}

#define ARG_LOW(n) (offsetof(struct seccomp_data, args) + 8 * (n))
#define ARG_HIGH(n) (offsetof(struct seccomp_data, args) + 8 * (n) + 4)

static void build_filter(struct program *program, int mode) {
    const uint32_t allow = SECCOMP_RET_ALLOW;
    const uint32_t refuse = SECCOMP_RET_ERRNO | EACCES;
    const uint32_t missing = SECCOMP_RET_ERRNO | ENOSYS;
    const uint32_t notify = SECCOMP_RET_USER_NOTIF;
    const int supervised = mode == AGC_METADATA_SUPERVISED;
    program->length = 0;
    // Another architecture's calls (a 64-bit process may still enter the 32-bit
    // table) and x32's numbers would slip past the numbers below: refused whole.
    emit(program, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    emit(program, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AGC_AUDIT_ARCH, 1, 0));
    emit(program, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, missing));
    emit(program, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
#if defined(__x86_64__)
    emit(program, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
    emit(program, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, missing));
#endif
    // By path (or by an O_PATH descriptor through AT_EMPTY_PATH).
    const long by_path[] = {
#ifdef __NR_chmod
        __NR_chmod, __NR_chown, __NR_lchown, __NR_utime, __NR_utimes, __NR_futimesat,
#endif
        __NR_fchmodat, AGC_NR_FCHMODAT2, __NR_fchownat,
        __NR_setxattr, __NR_lsetxattr, __NR_removexattr, __NR_lremovexattr,
    };
    for (size_t index = 0; index < sizeof by_path / sizeof by_path[0]; index++) {
        emit_call(program, by_path[index], supervised ? notify : refuse);
    }
    // By an open descriptor: opening it is what Landlock checked, but a file the
    // target may only read (its bundle, the scratch folder) can be opened too.
    const long by_descriptor[] = { __NR_fchmod, __NR_fchown, __NR_fsetxattr, __NR_fremovexattr };
    for (size_t index = 0; index < sizeof by_descriptor / sizeof by_descriptor[0]; index++) {
        emit_call(program, by_descriptor[index], supervised ? notify : allow);
    }
    // utimensat names a path unless its path is NULL (futimens).
    if (supervised) {
        emit_call(program, __NR_utimensat, notify);
    } else {
        emit(program, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_utimensat, 0, 5));
        emit(program, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(1)));
        emit(program, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2));
        emit(program, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_HIGH(1)));
        emit(program, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0));
        emit(program, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, refuse));
        emit(program, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, allow));
    }
    // The *at forms of the attribute calls (Linux 6.13) take a structure the
    // supervisor does not read: answered as on a kernel without them.
    emit_call(program, AGC_NR_SETXATTRAT, missing);
    emit_call(program, AGC_NR_REMOVEXATTRAT, missing);
    // File flags (chattr) by ioctl on any descriptor the target could open.
    emit(program, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 5));
    emit(program, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(1)));
    emit(program, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AGC_FS_IOC_SETFLAGS, 2, 0));
    emit(program, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AGC_FS_IOC32_SETFLAGS, 1, 0));
    emit(program, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AGC_FS_IOC_FSSETXATTR, 0, 1));
    emit(program, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, refuse));
    emit(program, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, allow));
}

int agc_spawn_child_metadata_filter(int mode, int socket) {
    struct program program;
    build_filter(&program, mode);
    struct sock_fprog prog = { .len = program.length, .filter = program.code };
    unsigned flags = mode == AGC_METADATA_SUPERVISED ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0;
    long listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
    if (listener < 0) return -1;
    if (mode != AGC_METADATA_SUPERVISED) return 0;
    // The listener to the device, which reads it once the child has run execve:
    // one small message on an empty socket, so the send cannot block.
    char byte = 'L';
    struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int))]; } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space };
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    int fd = (int)listener;
    memcpy(CMSG_DATA(header), &fd, sizeof fd);
    ssize_t sent = sendmsg(socket, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
    int saved = errno;
    close(fd);
    errno = saved;
    return sent == 1 ? 0 : -1;
}

// MARK: - Probing

struct agc_open_how { uint64_t flags; uint64_t mode; uint64_t resolve; };
#define AGC_RESOLVE_NO_MAGICLINKS 0x02
#define AGC_RESOLVE_NO_SYMLINKS 0x04
#define AGC_RESOLVE_BENEATH 0x08

static volatile int forced_mode = -1;

void agc_metadata_force_mode(int mode) { forced_mode = mode; }

int agc_metadata_available_mode(void) {
    if (forced_mode >= 0) return forced_mode;
    uint32_t action = SECCOMP_RET_USER_NOTIF;
    if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0) {
        // The supervisor also needs pidfd_open, pidfd_getfd and openat2 (Linux 5.6).
        long pidfd = syscall(AGC_NR_PIDFD_OPEN, getpid(), 0);
        if (pidfd < 0) return AGC_METADATA_REFUSED;
        long copy = syscall(AGC_NR_PIDFD_GETFD, (int)pidfd, 0, 0);
        int copy_errno = errno;
        close((int)pidfd);
        if (copy >= 0) close((int)copy);
        else if (copy_errno == ENOSYS) return AGC_METADATA_REFUSED;
        struct agc_open_how how = { .flags = O_PATH | O_CLOEXEC };
        long root = syscall(AGC_NR_OPENAT2, AT_FDCWD, "/", &how, sizeof how);
        if (root < 0) return AGC_METADATA_REFUSED;
        close((int)root);
        return AGC_METADATA_SUPERVISED;
    }
    if (errno == EOPNOTSUPP) return AGC_METADATA_REFUSED;
    uint32_t errno_action = SECCOMP_RET_ERRNO;
    if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &errno_action) == 0) return AGC_METADATA_REFUSED;
    return AGC_METADATA_NONE;
}

int agc_metadata_receive_listener(int socket) {
    char byte;
    struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int))]; } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space };
    ssize_t received;
    do { received = recvmsg(socket, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC); } while (received < 0 && errno == EINTR);
    if (received < 0) return -errno;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    if (received != 1 || header == NULL || header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS
        || header->cmsg_len != CMSG_LEN(sizeof(int))) return -EPROTO;
    int fd;
    memcpy(&fd, CMSG_DATA(header), sizeof fd);
    return fd;
}

// MARK: - The supervisor (in the device's process)

struct supervisor {
    int listener;
    int count;
    int *roots;          // O_PATH descriptors of the directories the target may write
    struct stat *identities;
};

/// Copies `length` bytes at `address` in task `tid` (process_vm_readv). 0 or -errno.
static int copy_in(pid_t tid, uint64_t address, void *buffer, size_t length) {
    if (length == 0) return 0;
    if (address == 0) return -EFAULT;
    struct iovec local = { .iov_base = buffer, .iov_len = length };
    struct iovec remote = { .iov_base = (void *)(uintptr_t)address, .iov_len = length };
    ssize_t got = process_vm_readv(tid, &local, 1, &remote, 1, 0);
    if (got < 0) return errno == ESRCH ? -ESRCH : -EFAULT;
    return (size_t)got == length ? 0 : -EFAULT;
}

/// Copies the NUL-terminated string at `address` in `tid`, at most `capacity`
/// bytes with its NUL, a page at a time (the string may end just before an
/// unmapped page). Its length, or -errno (`too_long` when it does not end in time).
static long copy_string(pid_t tid, uint64_t address, char *buffer, size_t capacity, int too_long) {
    if (address == 0) return -EFAULT;
    size_t copied = 0;
    while (copied < capacity) {
        uint64_t at = address + copied;
        size_t chunk = 4096 - (size_t)(at % 4096);
        if (chunk > capacity - copied) chunk = capacity - copied;
        int result = copy_in(tid, at, buffer + copied, chunk);
        if (result != 0) return result;
        char *end = memchr(buffer + copied, '\0', chunk);
        if (end != NULL) return (long)(end - buffer);
        copied += chunk;
    }
    return -too_long;
}

static int notification_valid(int listener, uint64_t id) {
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0) return 1;
    if (errno != EINVAL && errno != ENOTTY) return 0;
    // Kernels before 5.9 know the request by its first, read-direction number only.
    return ioctl(listener, _IOR(SECCOMP_IOC_MAGIC, 2, uint64_t), &id) == 0;
}

/// The thread group of thread `tid` (/proc/<tid>/status), or -errno.
static pid_t thread_group(pid_t tid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -ESRCH;
    char text[4096];
    ssize_t length = read(fd, text, sizeof text - 1);
    close(fd);
    if (length <= 0) return -ESRCH;
    text[length] = '\0';
    char *line = strstr(text, "\nTgid:");
    if (line == NULL) return -ESRCH;
    long tgid = strtol(line + 6, NULL, 10);
    return tgid > 0 ? (pid_t)tgid : -ESRCH;
}

/// A duplicate of the target's descriptor `fd` (pidfd_getfd: the same open file
/// description, O_PATH and all), or -errno (EBADF when it has none there).
static int target_descriptor(pid_t tid, int fd) {
    if (fd < 0) return -EBADF;
    pid_t tgid = thread_group(tid);
    if (tgid < 0) return tgid;
    long pidfd = syscall(AGC_NR_PIDFD_OPEN, tgid, 0);
    if (pidfd < 0) return -ESRCH;
    long copy = syscall(AGC_NR_PIDFD_GETFD, (int)pidfd, fd, 0);
    int saved = errno;
    close((int)pidfd);
    if (copy < 0) return saved == EBADF ? -EBADF : -saved;
    (void)fcntl((int)copy, F_SETFD, FD_CLOEXEC);
    return (int)copy;
}

/// Where a relative path of the target starts: its working directory or its `dirfd`.
static int target_base(pid_t tid, int dirfd) {
    if (dirfd != AT_FDCWD) return target_descriptor(tid, dirfd);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cwd", (int)tid);
    int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    return fd >= 0 ? fd : -ESRCH;
}

/// The object `path` names for the target (its `dirfd` or working directory for a
/// relative path), opened O_PATH here, following a last link only when `follow`;
/// with `empty` an empty path names `dirfd` itself. The kernel resolves it once,
/// and every step after works on this descriptor, never on the path again.
static int resolve(pid_t tid, int dirfd, char *path, int follow, int empty) {
    if (path[0] == '\0') {
        if (!empty) return -ENOENT;
        return target_base(tid, dirfd);
    }
    // The target's /proc/self is not the supervisor's.
    char translated[AGC_PATH_CAPACITY + 64];
    const char *prefixes[] = { "/proc/thread-self", "/proc/self" };
    for (int index = 0; index < 2; index++) {
        size_t length = strlen(prefixes[index]);
        if (strncmp(path, prefixes[index], length) == 0 && (path[length] == '/' || path[length] == '\0')) {
            snprintf(translated, sizeof translated, "/proc/%d%s", (int)tid, path + length);
            path = translated;
            break;
        }
    }
    int base = AT_FDCWD;
    if (path[0] != '/') {
        base = target_base(tid, dirfd);
        if (base < 0) return base;
    }
    int fd = openat(base, path, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
    int saved = errno;
    if (base != AT_FDCWD) close(base);
    return fd >= 0 ? fd : -saved;
}


/// Whether `object` lies beneath (or is) one of the directories the target may
/// write: its name now (/proc/self/fd) must start with a root's name now, and the
/// rest of that name, looked up from the root's descriptor without a link or a
/// `..` leaving it, must lead to this very object.
static int beneath_a_root(const struct supervisor *supervisor, int object) {
    struct stat status;
    if (fstat(object, &status) != 0) return 0;
    for (int index = 0; index < supervisor->count; index++) {
        if (status.st_dev == supervisor->identities[index].st_dev && status.st_ino == supervisor->identities[index].st_ino) return 1;
    }
    char link[64], name[AGC_PATH_CAPACITY], root_name[AGC_PATH_CAPACITY];
    snprintf(link, sizeof link, "/proc/self/fd/%d", object);
    ssize_t length = readlink(link, name, sizeof name - 1);
    if (length <= 0 || (size_t)length >= sizeof name - 1 || name[0] != '/') return 0;
    name[length] = '\0';
    for (int index = 0; index < supervisor->count; index++) {
        snprintf(link, sizeof link, "/proc/self/fd/%d", supervisor->roots[index]);
        ssize_t root_length = readlink(link, root_name, sizeof root_name - 1);
        if (root_length <= 0 || (size_t)root_length >= sizeof root_name - 1) continue;
        root_name[root_length] = '\0';
        if (root_length >= length || strncmp(name, root_name, (size_t)root_length) != 0 || name[root_length] != '/') continue;
        struct agc_open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
                                    .resolve = AGC_RESOLVE_BENEATH | AGC_RESOLVE_NO_SYMLINKS | AGC_RESOLVE_NO_MAGICLINKS };
        long again = syscall(AGC_NR_OPENAT2, supervisor->roots[index], name + root_length + 1, &how, sizeof how);
        if (again < 0) continue;
        struct stat found;
        int same = fstat((int)again, &found) == 0 && found.st_dev == status.st_dev && found.st_ino == status.st_ino;
        close((int)again);
        if (same) return 1;
    }
    return 0;
}

static int proc_name(int fd, char *buffer, size_t capacity) {
    return snprintf(buffer, capacity, "/proc/self/fd/%d", fd);
}

static long result_of(long value) { return value < 0 ? -errno : value; }

/// chmod of `object` (an O_PATH descriptor that is not a link).
static long change_mode(int object, mode_t mode) {
    long result = syscall(AGC_NR_FCHMODAT2, object, "", mode, AT_EMPTY_PATH);
    if (result == 0 || errno != ENOSYS) return result_of(result);
    struct stat status;
    if (fstat(object, &status) == 0 && S_ISLNK(status.st_mode)) return -EOPNOTSUPP;
    char name[64];
    proc_name(object, name, sizeof name);
    return result_of(chmod(name, mode));
}

static int is_link(int object) {
    struct stat status;
    return fstat(object, &status) == 0 && S_ISLNK(status.st_mode);
}

/// What the call with these times would set: two timespecs (NULL: now).
static long read_timevals(pid_t tid, uint64_t address, struct timespec times[2], int *now) {
    if (address == 0) { *now = 1; return 0; }
    struct timeval values[2];
    long result = copy_in(tid, address, values, sizeof values);
    if (result != 0) return result;
    for (int index = 0; index < 2; index++) {
        if (values[index].tv_usec < 0 || values[index].tv_usec >= 1000000) return -EINVAL;
        times[index].tv_sec = values[index].tv_sec;
        times[index].tv_nsec = values[index].tv_usec * 1000;
    }
    *now = 0;
    return 0;
}

/// The call's answer (>= 0 value or -errno), or AGC_GONE when the target's call
/// ended before it could be answered (it died, or its thread was interrupted).
#define AGC_GONE (-100000)

static long handle(const struct supervisor *supervisor, const struct seccomp_notif *request) {
    const pid_t tid = (pid_t)request->pid;
    const __u64 *args = request->data.args;
    const int nr = request->data.nr;
    if (request->data.arch != AGC_AUDIT_ARCH) return -ENOSYS;

    // 1. Copy what the call names, once.
    char path[AGC_PATH_CAPACITY];
    char name[AGC_XATTR_NAME_CAPACITY];
    static __thread char value[AGC_XATTR_VALUE_CAPACITY];
    struct timespec times[2];
    int now = 0;
    int dirfd = AT_FDCWD, follow = 1, empty = 0, descriptor = -1, has_path = 1;
    uint64_t path_address = 0;
    size_t value_size = 0;
    int xattr_flags = 0;
    long result = 0;
    switch (nr) {
#ifdef __NR_chmod
    case __NR_chmod: path_address = args[0]; break;
    case __NR_chown: path_address = args[0]; break;
    case __NR_lchown: path_address = args[0]; follow = 0; break;
    case __NR_utime: {
        path_address = args[0];
        if (args[1] == 0) { now = 1; break; }
        struct { long actime; long modtime; } buffer;
        result = copy_in(tid, args[1], &buffer, sizeof buffer);
        times[0] = (struct timespec){ .tv_sec = buffer.actime, .tv_nsec = 0 };
        times[1] = (struct timespec){ .tv_sec = buffer.modtime, .tv_nsec = 0 };
        break;
    }
    case __NR_utimes: path_address = args[0]; result = read_timevals(tid, args[1], times, &now); break;
    case __NR_futimesat:
        dirfd = (int)args[0];
        if (args[1] == 0) { has_path = 0; descriptor = dirfd; } else path_address = args[1];
        result = read_timevals(tid, args[2], times, &now);
        break;
#endif
    case __NR_fchmodat: dirfd = (int)args[0]; path_address = args[1]; break;
    case AGC_NR_FCHMODAT2:
        dirfd = (int)args[0]; path_address = args[1];
        if (args[3] & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) return -EINVAL;
        follow = !(args[3] & AT_SYMLINK_NOFOLLOW); empty = (args[3] & AT_EMPTY_PATH) != 0;
        break;
    case __NR_fchownat:
        dirfd = (int)args[0]; path_address = args[1];
        if (args[4] & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) return -EINVAL;
        follow = !(args[4] & AT_SYMLINK_NOFOLLOW); empty = (args[4] & AT_EMPTY_PATH) != 0;
        break;
    case __NR_utimensat:
        dirfd = (int)args[0];
        if (args[3] & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) return -EINVAL;
        if (args[1] == 0) {
            if (dirfd == AT_FDCWD) return -EFAULT;
            if (args[3] != 0) return -EINVAL;
            has_path = 0; descriptor = dirfd;
        } else {
            path_address = args[1];
            follow = !(args[3] & AT_SYMLINK_NOFOLLOW); empty = (args[3] & AT_EMPTY_PATH) != 0;
        }
        if (args[2] == 0) now = 1;
        else result = copy_in(tid, args[2], times, sizeof(struct timespec) * 2);
        break;
    case __NR_fchmod: case __NR_fchown: has_path = 0; descriptor = (int)args[0]; break;
    case __NR_setxattr: case __NR_lsetxattr: case __NR_fsetxattr:
    case __NR_removexattr: case __NR_lremovexattr: case __NR_fremovexattr: {
        if (nr == __NR_fsetxattr || nr == __NR_fremovexattr) { has_path = 0; descriptor = (int)args[0]; }
        else path_address = args[0];
        follow = nr != __NR_lsetxattr && nr != __NR_lremovexattr;
        long length = copy_string(tid, args[1], name, sizeof name, ERANGE);
        if (length < 0) return length;
        if (length == 0) return -ERANGE;
        if (nr == __NR_setxattr || nr == __NR_lsetxattr || nr == __NR_fsetxattr) {
            value_size = (size_t)args[3];
            xattr_flags = (int)args[4];
            if (value_size > AGC_XATTR_VALUE_CAPACITY) return -E2BIG;
            result = copy_in(tid, args[2], value, value_size);
        }
        break;
    }
    default:
        return -ENOSYS;
    }
    if (result != 0) return result;
    if (has_path) {
        long length = copy_string(tid, path_address, path, sizeof path, ENAMETOOLONG);
        if (length < 0) return length;
    }

    // 2. The object, resolved once in the target's view.
    int object = has_path ? resolve(tid, dirfd, path, follow, empty) : target_descriptor(tid, descriptor);
    // Whatever was read belonged to the notifying thread only if its call is still pending.
    if (!notification_valid(supervisor->listener, request->id)) {
        if (object >= 0) close(object);
        return AGC_GONE;
    }
    if (object < 0) return object;

    // 3. Allowed only beneath what the target may write.
    if (!beneath_a_root(supervisor, object)) {
        close(object);
        return -EACCES;
    }

    // 4. Done here, on this descriptor.
    char proc[64];
    proc_name(object, proc, sizeof proc);
    switch (nr) {
#ifdef __NR_chmod
    case __NR_chmod:
#endif
    case __NR_fchmodat: case AGC_NR_FCHMODAT2:
        result = change_mode(object, (mode_t)args[nr == __NR_fchmodat || nr == AGC_NR_FCHMODAT2 ? 2 : 1]);
        break;
    case __NR_fchmod: result = result_of(fchmod(object, (mode_t)args[1])); break;
#ifdef __NR_chmod
    case __NR_chown: case __NR_lchown:
        result = result_of(fchownat(object, "", (uid_t)args[1], (gid_t)args[2], AT_EMPTY_PATH));
        break;
#endif
    case __NR_fchownat:
        result = result_of(fchownat(object, "", (uid_t)args[2], (gid_t)args[3], AT_EMPTY_PATH));
        break;
    case __NR_fchown: result = result_of(fchown(object, (uid_t)args[1], (gid_t)args[2])); break;
#ifdef __NR_chmod
    case __NR_utime: case __NR_utimes:
#endif
    case __NR_utimensat:
#ifdef __NR_futimesat
    case __NR_futimesat:
#endif
        if (has_path) result = result_of(utimensat(object, "", now ? NULL : times, AT_EMPTY_PATH));
        else result = result_of(futimens(object, now ? NULL : times));
        break;
    case __NR_fsetxattr: result = result_of(fsetxattr(object, name, value, value_size, xattr_flags)); break;
    case __NR_fremovexattr: result = result_of(fremovexattr(object, name)); break;
    case __NR_setxattr: case __NR_lsetxattr:
        if (is_link(object)) {
            // A link's attributes: only through its own descriptor (Linux 6.13 takes O_PATH here).
            result = result_of(fsetxattr(object, name, value, value_size, xattr_flags));
            if (result == -EBADF) result = -EPERM;
        } else {
            result = result_of(setxattr(proc, name, value, value_size, xattr_flags));
        }
        break;
    case __NR_removexattr: case __NR_lremovexattr:
        if (is_link(object)) {
            result = result_of(fremovexattr(object, name));
            if (result == -EBADF) result = -EPERM;
        } else {
            result = result_of(removexattr(proc, name));
        }
        break;
    default:
        result = -ENOSYS;
    }
    close(object);
    return result;
}

static void *supervise(void *argument) {
    struct supervisor *supervisor = argument;
    (void)agc_name_thread("agc-metadata");
    struct seccomp_notif_sizes sizes;
    memset(&sizes, 0, sizeof sizes);
    if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) {
        sizes.seccomp_notif = sizeof(struct seccomp_notif);
        sizes.seccomp_notif_resp = sizeof(struct seccomp_notif_resp);
    }
    size_t request_size = sizes.seccomp_notif > sizeof(struct seccomp_notif) ? sizes.seccomp_notif : sizeof(struct seccomp_notif);
    size_t response_size = sizes.seccomp_notif_resp > sizeof(struct seccomp_notif_resp) ? sizes.seccomp_notif_resp : sizeof(struct seccomp_notif_resp);
    struct seccomp_notif *request = calloc(1, request_size);
    struct seccomp_notif_resp *response = calloc(1, response_size);
    while (request != NULL && response != NULL) {
        struct pollfd poller = { .fd = supervisor->listener, .events = POLLIN };
        int ready = poll(&poller, 1, -1);
        if (ready < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (!(poller.revents & POLLIN)) {
            // Every process under the filter has ended (POLLHUP).
            if (poller.revents & (POLLHUP | POLLERR | POLLNVAL)) break;
            continue;
        }
        memset(request, 0, request_size);
        if (ioctl(supervisor->listener, SECCOMP_IOCTL_NOTIF_RECV, request) != 0) {
            if (errno == EINTR || errno == ENOENT) continue;
            break;
        }
        long answer = handle(supervisor, request);
        if (answer == AGC_GONE) continue;
        memset(response, 0, response_size);
        response->id = request->id;
        response->flags = 0;
        response->val = answer < 0 ? 0 : answer;
        response->error = answer < 0 ? (int32_t)answer : 0;
        // ENOENT: the call was interrupted or the target died meanwhile.
        (void)ioctl(supervisor->listener, SECCOMP_IOCTL_NOTIF_SEND, response);
    }
    free(request);
    free(response);
    close(supervisor->listener);
    for (int index = 0; index < supervisor->count; index++) close(supervisor->roots[index]);
    free(supervisor->roots);
    free(supervisor->identities);
    free(supervisor);
    return NULL;
}

int agc_metadata_supervise(int listener, const char *const *roots, int count) {
    if (count < 0 || count > 1024) { close(listener); return -EINVAL; }
    struct supervisor *supervisor = calloc(1, sizeof *supervisor);
    int *fds = calloc((size_t)count + 1, sizeof(int));
    struct stat *identities = calloc((size_t)count + 1, sizeof(struct stat));
    if (supervisor == NULL || fds == NULL || identities == NULL) {
        free(supervisor); free(fds); free(identities); close(listener);
        return -ENOMEM;
    }
    supervisor->listener = listener;
    supervisor->roots = fds;
    supervisor->identities = identities;
    for (int index = 0; index < count; index++) {
        int fd = open(roots[index], O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) continue; // missing: nothing beneath it to allow
        if (fstat(fd, &identities[supervisor->count]) != 0) { close(fd); continue; }
        fds[supervisor->count++] = fd;
    }
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attributes, 256 * 1024);
    // The thread takes every signal blocked: a handler of the process must not
    // interrupt an answer half made.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pthread_t thread;
    int failed = pthread_create(&thread, &attributes, supervise, supervisor);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    pthread_attr_destroy(&attributes);
    if (failed != 0) {
        for (int index = 0; index < supervisor->count; index++) close(fds[index]);
        free(fds); free(identities); free(supervisor); close(listener);
        return -failed;
    }
    return 0;
}

#else // an architecture this file has no numbers for

int agc_spawn_child_metadata_filter(int mode, int socket) { (void)mode; (void)socket; errno = ENOSYS; return -1; }
void agc_metadata_force_mode(int mode) { (void)mode; }
int agc_metadata_available_mode(void) { return AGC_METADATA_NONE; }
int agc_metadata_receive_listener(int socket) { (void)socket; return -ENOSYS; }
int agc_metadata_supervise(int listener, const char *const *roots, int count) { (void)roots; (void)count; close(listener); return -ENOSYS; }

#endif

#else

int agc_spawn_child_metadata_filter(int mode, int socket) { (void)mode; (void)socket; errno = ENOSYS; return -1; }
void agc_metadata_force_mode(int mode) { (void)mode; }
int agc_metadata_available_mode(void) { return AGC_METADATA_NONE; }
int agc_metadata_receive_listener(int socket) { (void)socket; return -ENOSYS; }
int agc_metadata_supervise(int listener, const char *const *roots, int count) { (void)listener; (void)roots; (void)count; return -ENOSYS; }

#endif
