#define _GNU_SOURCE
#include "CSandboxProbe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#define FCHMODAT2 452
static const char value[] = "attack";

static const char *path_names[] = {
    "chmod", "fchmodat", "fchmodat2-nofollow", "fchmodat2-empty-opath", "chmod-proc-fd-opath",
    "chown", "lchown", "fchownat", "fchownat-empty-opath",
    "utime", "utimes", "futimesat", "utimensat", "utimensat-nofollow", "utimensat-empty-opath",
    "setxattr", "removexattr", "lsetxattr", "lremovexattr", "setxattr-proc-fd-opath",
    "fsetxattr-opath", "fremovexattr-opath", "fchown-opath", "fchmod-opath",
};

int csp_path_call_count(void) { return (int)(sizeof path_names / sizeof path_names[0]); }
const char *csp_path_call_name(int call) { return call >= 0 && call < csp_path_call_count() ? path_names[call] : "?"; }

static int answer(long result) { return result < 0 ? -errno : 0; }

int csp_path_call(int call, const char *path, unsigned uid, unsigned gid) {
    struct timespec times[2] = { { CSP_SECONDS, 0 }, { CSP_SECONDS, 0 } };
    struct timeval timevals[2] = { { CSP_SECONDS, 0 }, { CSP_SECONDS, 0 } };
    struct utimbuf utimes_buffer = { CSP_SECONDS, CSP_SECONDS };
    int fd = -1;
    if (strstr(path_names[call], "-opath") != NULL) {
        fd = open(path, O_PATH | O_CLOEXEC);
        if (fd < 0) return -errno;
    }
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    long result;
    switch (call) {
    case 0: result = chmod(path, CSP_MODE); break;
    case 1: result = fchmodat(AT_FDCWD, path, CSP_MODE, 0); break;
    case 2: result = syscall(FCHMODAT2, AT_FDCWD, path, CSP_MODE, AT_SYMLINK_NOFOLLOW); break;
    case 3: result = syscall(FCHMODAT2, fd, "", CSP_MODE, AT_EMPTY_PATH); break;
    case 4: result = chmod(proc, CSP_MODE); break;
    case 5: result = chown(path, uid, gid); break;
    case 6: result = lchown(path, uid, gid); break;
    case 7: result = fchownat(AT_FDCWD, path, uid, gid, 0); break;
    case 8: result = fchownat(fd, "", uid, gid, AT_EMPTY_PATH); break;
    case 9: result = utime(path, &utimes_buffer); break;
    case 10: result = utimes(path, timevals); break;
#ifdef SYS_futimesat
    case 11: result = syscall(SYS_futimesat, AT_FDCWD, path, timevals); break;
#else
    case 11: result = utimes(path, timevals); break;
#endif
    case 12: result = utimensat(AT_FDCWD, path, times, 0); break;
    case 13: result = utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW); break;
    case 14: result = utimensat(fd, "", times, AT_EMPTY_PATH); break;
    case 15: result = setxattr(path, CSP_ATTRIBUTE, value, sizeof value, 0); break;
    case 16: result = removexattr(path, CSP_ATTRIBUTE); break;
    case 17: result = lsetxattr(path, CSP_ATTRIBUTE, value, sizeof value, 0); break;
    case 18: result = lremovexattr(path, CSP_ATTRIBUTE); break;
    case 19: result = setxattr(proc, CSP_ATTRIBUTE, value, sizeof value, 0); break;
    case 20: result = fsetxattr(fd, CSP_ATTRIBUTE, value, sizeof value, 0); break;
    case 21: result = fremovexattr(fd, CSP_ATTRIBUTE); break;
    case 22: result = fchown(fd, uid, gid); break;
    case 23: result = fchmod(fd, CSP_MODE); break;
    default: errno = EINVAL; result = -1;
    }
    int saved = answer(result);
    if (fd >= 0) close(fd);
    return saved;
}

static const char *descriptor_names[] = { "fchmod", "fchown", "futimens", "fsetxattr", "fremovexattr", "fchownat-empty", "utimensat-empty" };

int csp_descriptor_call_count(void) { return (int)(sizeof descriptor_names / sizeof descriptor_names[0]); }
const char *csp_descriptor_call_name(int call) {
    return call >= 0 && call < csp_descriptor_call_count() ? descriptor_names[call] : "?";
}

int csp_descriptor_call(int call, int fd, unsigned uid, unsigned gid) {
    struct timespec times[2] = { { CSP_SECONDS, 0 }, { CSP_SECONDS, 0 } };
    switch (call) {
    case 0: return answer(fchmod(fd, CSP_MODE));
    case 1: return answer(fchown(fd, uid, gid));
    case 2: return answer(futimens(fd, times));
    case 3: return answer(fsetxattr(fd, CSP_ATTRIBUTE, value, sizeof value, 0));
    case 4: return answer(fremovexattr(fd, CSP_ATTRIBUTE));
    case 5: return answer(fchownat(fd, "", uid, gid, AT_EMPTY_PATH));
    case 6: return answer(utimensat(fd, "", times, AT_EMPTY_PATH));
    default: return -EINVAL;
    }
}

int csp_has_attack_attribute(const char *path) {
    char buffer[64];
    return lgetxattr(path, CSP_ATTRIBUTE, buffer, sizeof buffer) >= 0 ? 1 : 0;
}
