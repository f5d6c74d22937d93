// openat2(2) has no glibc wrapper before 2.42, and Swift cannot call the variadic
// syscall(2): this file is the one place that makes it.
#define _GNU_SOURCE
#include "CAppGroupSys.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif
#endif

int agc_open_beneath(int directory, const char *path, int flags) {
#if defined(__linux__) && defined(SYS_openat2) && defined(RESOLVE_BENEATH)
    struct open_how how = {
        .flags = (unsigned long long)flags,
        .mode = 0,
        // With AT_FDCWD and an absolute path there is nothing to stay beneath:
        // following no link at all is then the whole rule.
        .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | (directory == AT_FDCWD ? 0 : RESOLVE_BENEATH),
    };
    return (int)syscall(SYS_openat2, directory, path, &how, sizeof how);
#else
    (void)directory;
    (void)path;
    (void)flags;
    errno = ENOSYS;
    return -1;
#endif
}
