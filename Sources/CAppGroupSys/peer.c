// Local stream sockets whose peer the kernel names (SO_PEERCRED), with a
// descriptor passed beside the bytes (SCM_RIGHTS): how the presenters of one
// process are asked by another (AppGroupSystem's LocalSockets.swift). Every
// socket is close-on-exec and nonblocking; nothing here raises SIGPIPE.
#define _GNU_SOURCE
#include "CAppGroupSys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

// The address of `name` in `directory`: through /proc/self/fd and a descriptor
// of the directory (`*held`, closed by the caller), so that a path longer than
// an address holds still works.
static int agc_local_address(const char *directory, const char *name, struct sockaddr_un *address, int *held) {
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    *held = open(directory, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (*held < 0) return -1;
    int length = snprintf(address->sun_path, sizeof address->sun_path, "/proc/self/fd/%d/%s", *held, name);
    if (length <= 0 || length >= (int)sizeof address->sun_path) {
        close(*held);
        *held = -1;
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

int agc_local_listen(const char *directory, const char *name, int backlog) {
    struct sockaddr_un address;
    int held;
    if (strchr(name, '/') != NULL) { errno = EINVAL; return -1; }
    if (agc_local_address(directory, name, &address, &held) != 0) return -1;
    // Whatever is at the name (an earlier socket of a pid reused, a planted file) goes.
    if (unlinkat(held, name, 0) != 0 && errno != ENOENT) {
        int saved = errno;
        close(held);
        errno = saved;
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int ready = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&address, sizeof address);
    if (ready == 0) ready = listen(fd, backlog);
    int saved = errno;
    close(held);
    if (ready != 0) {
        if (fd >= 0) close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int agc_local_accept(int listener, int *pid) {
    int fd;
    do { fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK); } while (fd < 0 && errno == EINTR);
    if (fd < 0) return -1;
    struct ucred peer;
    socklen_t size = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    *pid = (int)peer.pid;
    return fd;
}

int agc_local_connect(const char *directory, const char *name, int *pid) {
    struct sockaddr_un address;
    int held;
    if (strchr(name, '/') != NULL) { errno = EINVAL; return -1; }
    if (agc_local_address(directory, name, &address, &held) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int connected;
    do { connected = fd < 0 ? -1 : connect(fd, (struct sockaddr *)&address, sizeof address); } while (connected != 0 && errno == EINTR);
    int saved = errno;
    close(held);
    if (connected != 0) {
        if (fd >= 0) close(fd);
        errno = saved;
        return -1;
    }
    // The listener's process as the kernel recorded it when it listened.
    struct ucred peer;
    socklen_t size = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0) {
        saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    *pid = (int)peer.pid;
    return fd;
}

long agc_local_send(int fd, const void *bytes, unsigned long length, int passed) {
    struct iovec iov = { .iov_base = (void *)bytes, .iov_len = length };
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int))]; } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = { .msg_iov = &iov, .msg_iovlen = 1 };
    if (passed >= 0) {
        message.msg_control = control.space;
        message.msg_controllen = sizeof control.space;
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &passed, sizeof passed);
    }
    ssize_t sent;
    do { sent = sendmsg(fd, &message, MSG_DONTWAIT | MSG_NOSIGNAL); } while (sent < 0 && errno == EINTR);
    return (long)sent;
}

long agc_local_receive(int fd, void *buffer, unsigned long capacity, int *passed) {
    *passed = -1;
    struct iovec iov = { .iov_base = buffer, .iov_len = capacity };
    // Room for a few descriptors: any beyond the first is closed, never kept.
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int) * 8)]; } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space };
    ssize_t got;
    do { got = recvmsg(fd, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC); } while (got < 0 && errno == EINTR);
    if (got < 0) return -1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; i++) {
            int received;
            memcpy(&received, CMSG_DATA(header) + i * sizeof(int), sizeof received);
            if (*passed < 0) *passed = received;
            else close(received);
        }
    }
    return (long)got;
}

int agc_local_readable_directory(int fd, uint64_t *device, uint64_t *inode) {
    // An O_PATH descriptor proves nothing: Landlock does not restrict opening one.
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    if ((flags & O_PATH) == O_PATH || (flags & O_ACCMODE) == O_WRONLY) { errno = EBADF; return -1; }
    struct stat st;
    if (fstat(fd, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) { errno = ENOTDIR; return -1; }
    *device = (uint64_t)st.st_dev;
    *inode = (uint64_t)st.st_ino;
    return 0;
}

int agc_local_open_directory(const char *path) {
    int fd;
    do { fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC); } while (fd < 0 && errno == EINTR);
    return fd;
}
