// A stat that does not ask for timestamps. Since Linux 6.13, ext4, XFS, btrfs and
// tmpfs keep multigrain timestamps: a stat that reads a file's change time makes
// the next write to that file take a fine-grained time, which always differs, so
// the write dirties the inode (a journal handle on ext4) where it would otherwise
// leave it alone until the clock ticks. The share queue looks at the identity of
// files it then writes (the sequence file, its log) on every enqueue; with the
// times asked for, four writers lost a third of their throughput on ext4
// (benchmarks-history/2026-12-03-issue-30-share-queue-third-step.md). statx(2) with a mask
// that leaves the times out does not mark them as read.
#define _GNU_SOURCE
#include "CAppGroupSys.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#if defined(__linux__)
#include <sys/sysmacros.h>
#endif

int agc_statx_untimed(int directory, const char *name, int flags, struct stat *status) {
#if defined(__linux__) && defined(STATX_INO)
    struct statx sx;
    unsigned int mask = STATX_TYPE | STATX_MODE | STATX_NLINK | STATX_UID | STATX_GID | STATX_INO | STATX_SIZE | STATX_BLOCKS;
    if (statx(directory, name, flags, mask, &sx) != 0) return -1;
    memset(status, 0, sizeof *status);
    status->st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
    status->st_ino = sx.stx_ino;
    status->st_mode = sx.stx_mode;
    status->st_nlink = sx.stx_nlink;
    status->st_uid = sx.stx_uid;
    status->st_gid = sx.stx_gid;
    status->st_rdev = makedev(sx.stx_rdev_major, sx.stx_rdev_minor);
    status->st_size = (off_t)sx.stx_size;
    status->st_blksize = (blksize_t)sx.stx_blksize;
    status->st_blocks = (blkcnt_t)sx.stx_blocks;
    return 0;
#else
    (void)directory;
    (void)name;
    (void)flags;
    (void)status;
    errno = ENOSYS;
    return -1;
#endif
}
