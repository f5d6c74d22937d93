// The kernel side of a simulated target's sandbox: Landlock rulesets, and a spawn
// that restricts the child with one before it runs a single instruction of the
// target. Foundation's Process runs nothing in the child between fork and exec,
// and Landlock restricts only the thread that asks (and what it starts), so the
// restriction has to happen here, in the child, between vfork and execve.
//
// The constants and structures are spelled out rather than taken from
// <linux/landlock.h>: the C library's copy of that header often predates the
// kernel (this one lacks ABI 3 and later), and the kernel's values never change.
#define _GNU_SOURCE
#include "CAppGroupSys.h"

#include <errno.h>
#include <stdint.h>

#ifdef __linux__

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#define AGC_LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#define AGC_LANDLOCK_RULE_PATH_BENEATH 1

struct agc_landlock_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct agc_landlock_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

/// Set by tests (through agc_landlock_force_unavailable) to play a kernel without Landlock.
static volatile int forced_unavailable = 0;

void agc_landlock_force_unavailable(int errno_value) {
    forced_unavailable = errno_value;
}

int agc_landlock_abi(void) {
    if (forced_unavailable != 0) return -forced_unavailable;
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, AGC_LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 0) return -errno;
    return (int)abi;
}

int agc_landlock_create_ruleset(uint64_t handled_access_fs) {
    struct agc_landlock_ruleset_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.handled_access_fs = handled_access_fs;
    long fd = syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (fd < 0) return -errno;
    // The descriptor must not reach a child that does not restrict itself with it.
    (void)fcntl((int)fd, F_SETFD, FD_CLOEXEC);
    return (int)fd;
}

int agc_landlock_allow(int ruleset, const char *path, uint64_t allowed_access) {
    // O_PATH: a rule names a place, and needs no right to open it.
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return -errno;
    struct agc_landlock_path_beneath_attr rule;
    rule.allowed_access = allowed_access;
    rule.parent_fd = fd;
    long result = syscall(SYS_landlock_add_rule, ruleset, AGC_LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    int saved = errno;
    close(fd);
    return result < 0 ? -saved : 0;
}

pid_t agc_spawn(const char *path, char *const argv[], char *const envp[], const char *directory,
                int input, int output, int error, int channel, int ruleset, unsigned restrict_flags,
                int metadata_mode, int metadata_socket, int *failed_step) {
    // Every signal blocked across vfork: a handler of the parent's must not run in
    // the child, which shares the parent's memory until it calls execve.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    // Written by the child (shared memory) before it exits, read once it has.
    volatile int step = AGC_SPAWN_OK;
    volatile int child_errno = 0;
    pid_t pid = vfork();
    if (pid == 0) {
        // Caught signals back to their defaults (ignored ones stay ignored, as
        // execve leaves them), so that nothing of the parent's runs here.
        for (int signal = 1; signal < NSIG; signal++) {
            struct sigaction action;
            if (sigaction(signal, NULL, &action) != 0) continue;
            if (action.sa_handler == SIG_IGN || action.sa_handler == SIG_DFL) continue;
            action.sa_handler = SIG_DFL;
            action.sa_flags = 0;
            sigemptyset(&action.sa_mask);
            (void)sigaction(signal, &action, NULL);
        }
        // A process group of its own, as Foundation's Process gives its children.
        (void)setpgid(0, 0);
        int wanted[3] = {input, output, error};
        for (int target = 0; target < 3; target++) {
            if (dup2(wanted[target], target) < 0) { step = AGC_SPAWN_FAILED_DESCRIPTORS; goto fail; }
        }
        if (directory != NULL && chdir(directory) != 0) { step = AGC_SPAWN_FAILED_DIRECTORY; goto fail; }
        if (ruleset >= 0) {
            // Required to restrict oneself without CAP_SYS_ADMIN, and what keeps a
            // set-user-ID program from running outside the sandbox.
            if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) { step = AGC_SPAWN_FAILED_NO_NEW_PRIVS; goto fail; }
            if (syscall(SYS_landlock_restrict_self, ruleset, restrict_flags) != 0) { step = AGC_SPAWN_FAILED_RESTRICT; goto fail; }
            // What Landlock leaves open: metadata (metadata.c).
            if (metadata_mode != AGC_METADATA_NONE && agc_spawn_child_metadata_filter(metadata_mode, metadata_socket) != 0) {
                step = AGC_SPAWN_FAILED_METADATA; goto fail;
            }
        }
        // The lifecycle channel at its agreed number; dup2 clears close-on-exec.
        // (After the ruleset was used: its descriptor may be the one overwritten.)
        if (channel >= 0 && channel != AGC_LIFECYCLE_FD && dup2(channel, AGC_LIFECYCLE_FD) < 0) {
            step = AGC_SPAWN_FAILED_DESCRIPTORS; goto fail;
        }
        if (channel == AGC_LIFECYCLE_FD) (void)fcntl(channel, F_SETFD, 0);
        // Nothing but the three standard streams crosses into the target (the
        // ruleset's descriptor included); close_range exists since Linux 5.9.
        unsigned first_closed = channel >= 0 ? AGC_LIFECYCLE_FD + 1 : AGC_LIFECYCLE_FD;
        if (syscall(SYS_close_range, first_closed, ~0U, 0U) != 0) {
            for (int fd = (int)first_closed; fd < 65536; fd++) (void)close(fd);
        }
        pthread_sigmask(SIG_SETMASK, &previous, NULL);
        execve(path, argv, envp);
        step = AGC_SPAWN_FAILED_EXEC;
    fail:
        child_errno = errno;
        _exit(127);
    }
    int saved = errno;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (pid < 0) {
        *failed_step = AGC_SPAWN_FAILED_FORK;
        errno = saved;
        return -1;
    }
    *failed_step = step;
    if (step != AGC_SPAWN_OK) {
        // The child exited without running the target: reap it here, nobody else knows it.
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        errno = child_errno;
        return -1;
    }
    return pid;
}

#else

void agc_landlock_force_unavailable(int errno_value) { (void)errno_value; }
int agc_landlock_abi(void) { return -ENOSYS; }
int agc_landlock_create_ruleset(uint64_t handled_access_fs) { (void)handled_access_fs; return -ENOSYS; }
int agc_landlock_allow(int ruleset, const char *path, uint64_t allowed_access) {
    (void)ruleset; (void)path; (void)allowed_access;
    return -ENOSYS;
}
pid_t agc_spawn(const char *path, char *const argv[], char *const envp[], const char *directory,
                int input, int output, int error, int channel, int ruleset, unsigned restrict_flags,
                int metadata_mode, int metadata_socket, int *failed_step) {
    (void)path; (void)argv; (void)envp; (void)directory; (void)input; (void)output; (void)error; (void)channel;
    (void)ruleset; (void)restrict_flags; (void)metadata_mode; (void)metadata_socket;
    *failed_step = AGC_SPAWN_FAILED_FORK;
    errno = ENOSYS;
    return -1;
}

#endif
