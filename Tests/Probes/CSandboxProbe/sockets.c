// The raw socket calls SandboxProbe makes as a hostile target would, against a
// presenting process's socket: connect and send with a descriptor beside the
// bytes, listen in another's place, flood. Each returns a value >= 0 or minus an errno.
#define _GNU_SOURCE
#include "CSandboxProbe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

// `path` as an address, through a descriptor of its directory (`*held`) when long.
static int address_of(const char *path, struct sockaddr_un *address, int *held) {
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    *held = -1;
    if (strlen(path) < sizeof address->sun_path) { strcpy(address->sun_path, path); return 0; }
    char directory[4096];
    const char *slash = strrchr(path, '/');
    if (slash == NULL || (size_t)(slash - path) >= sizeof directory) return -ENAMETOOLONG;
    memcpy(directory, path, (size_t)(slash - path));
    directory[slash - path] = 0;
    *held = open(directory, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (*held < 0) return -errno;
    snprintf(address->sun_path, sizeof address->sun_path, "/proc/self/fd/%d/%s", *held, slash + 1);
    return 0;
}

int csp_connect(const char *path) {
    struct sockaddr_un address;
    int held;
    int failed = address_of(path, &address, &held);
    if (failed) return failed;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int result = fd < 0 ? -errno : (connect(fd, (struct sockaddr *)&address, sizeof address) == 0 ? fd : -errno);
    if (result < 0 && fd >= 0) close(fd);
    if (held >= 0) close(held);
    return result;
}

int csp_listen_at(const char *path) {
    struct sockaddr_un address;
    int held;
    int failed = address_of(path, &address, &held);
    if (failed) return failed;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int result = fd < 0 ? -errno : ((bind(fd, (struct sockaddr *)&address, sizeof address) == 0 && listen(fd, 128) == 0) ? fd : -errno);
    if (result < 0 && fd >= 0) close(fd);
    if (held >= 0) close(held);
    return result;
}

int csp_open_directory(const char *path, int as_path) {
    int fd = open(path, (as_path ? O_PATH : O_RDONLY) | O_DIRECTORY | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

long csp_send(int socket, const char *bytes, size_t length, int passed) {
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
    ssize_t sent = sendmsg(socket, &message, MSG_NOSIGNAL);
    return sent < 0 ? -errno : (long)sent;
}

long csp_receive(int fd, char *buffer, size_t capacity, int timeout_ms) {
    struct pollfd ready = { .fd = fd, .events = POLLIN };
    int polled = poll(&ready, 1, timeout_ms);
    if (polled < 0) return -errno;
    if (polled == 0) return -ETIMEDOUT;
    ssize_t got = recv(fd, buffer, capacity, 0);
    return got < 0 ? -errno : (long)got;
}

int csp_accept(int listener, int timeout_ms) {
    struct pollfd ready = { .fd = listener, .events = POLLIN };
    int polled = poll(&ready, 1, timeout_ms);
    if (polled < 0) return -errno;
    if (polled == 0) return -ETIMEDOUT;
    int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

const char *csp_errno_name(int code) {
    switch (code) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case ECONNREFUSED: return "ECONNREFUSED";
    case EPIPE: return "EPIPE";
    case ECONNRESET: return "ECONNRESET";
    case ETIMEDOUT: return "ETIMEDOUT";
    case EAGAIN: return "EAGAIN";
    case EADDRINUSE: return "EADDRINUSE";
    default: return "other";
    }
}
