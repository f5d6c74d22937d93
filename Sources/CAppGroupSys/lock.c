// Only this file sees _GNU_SOURCE: Glibc hides F_OFD_SETLK(W) without it, and
// Swift's Glibc module is built without it.
#define _GNU_SOURCE
#include "CAppGroupSys.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int agc_lock(int fd, int mode, int wait) {
#if defined(F_OFD_SETLKW)
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_whence = SEEK_SET;
    fl.l_start = 0;
    fl.l_len = 0; // whole file, however large it grows
    fl.l_pid = 0; // required by OFD locks
    switch (mode) {
    case AGC_LOCK_SHARED: fl.l_type = F_RDLCK; break;
    case AGC_LOCK_EXCLUSIVE: fl.l_type = F_WRLCK; break;
    default: fl.l_type = F_UNLCK; break;
    }
    return fcntl(fd, (wait && mode != AGC_LOCK_UNLOCK) ? F_OFD_SETLKW : F_OFD_SETLK, &fl);
#else
    int op;
    switch (mode) {
    case AGC_LOCK_SHARED: op = LOCK_SH; break;
    case AGC_LOCK_EXCLUSIVE: op = LOCK_EX; break;
    default: op = LOCK_UN; break;
    }
    if (!wait) op |= LOCK_NB;
    return flock(fd, op);
#endif
}

int agc_lock_uses_ofd(void) {
#if defined(F_OFD_SETLKW)
    return 1;
#else
    return 0;
#endif
}
