// renameat2 is declared by Glibc only under _GNU_SOURCE, which Swift's Glibc
// module is built without: this file is the one place that names it.
#define _GNU_SOURCE
#include "CAppGroupSys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

int agc_rename_noreplace(int directory, const char *from, const char *to) {
#if defined(__linux__) && defined(RENAME_NOREPLACE)
    return renameat2(directory, from, directory, to, RENAME_NOREPLACE);
#elif defined(__linux__) && defined(SYS_renameat2)
    // An older C library: the system call itself (flag 1 is RENAME_NOREPLACE).
    return (int)syscall(SYS_renameat2, directory, from, directory, to, 1u);
#else
    (void)directory; (void)from; (void)to;
    errno = ENOSYS;
    return -1;
#endif
}
