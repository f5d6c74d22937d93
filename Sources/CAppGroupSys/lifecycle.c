// The target's end of the simulated device's lifecycle channel.
//
// Why a constructor here, and not a lazy start on first use of the package: iOS
// tells a process it goes to the background whether or not the process has
// touched any API yet (a widget that only holds an SQLite transaction open never
// calls into the package), and a test must be able to suspend any target. So the
// listener starts before main, in every process that links the package
// (CAppGroupSys is linked, as object files, into every executable that links
// AppGroupContainer), and does nothing unless the device started the process
// with a channel (APPGROUP_LIFECYCLE_FD). The thread it starts only reads; Swift
// code runs on it only when a message comes, long after the runtime is up, through
// agc_lifecycle_deliver (AppGroupSystem's LifecycleListener.swift, weak here so a
// program without Swift still links). No code change in the target beyond its
// import lines.
#define _GNU_SOURCE
#include "CAppGroupSys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __linux__
#include <fcntl.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

/// Swift's handler of one line from the device (AppGroupSystem); may be absent.
extern void agc_lifecycle_deliver(const char *line) __attribute__((weak));
/// Swift's handler of the channel's end (AppGroupSystem): requests waiting for
/// an answer stop waiting. May be absent.
extern void agc_lifecycle_closed(void) __attribute__((weak));

static int channel_fd = -1;
static pthread_t listener_thread;
static pthread_mutex_t send_lock = PTHREAD_MUTEX_INITIALIZER;

int agc_socket_pair(int fds[2]) {
    return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds);
}

int agc_lifecycle_listening(void) { return channel_fd >= 0; }

int agc_lifecycle_on_listener_thread(void) {
    return channel_fd >= 0 && pthread_equal(pthread_self(), listener_thread);
}

int agc_lifecycle_send(const char *line) {
    if (channel_fd < 0) { errno = EBADF; return -1; }
    size_t length = strlen(line);
    char *buffer = malloc(length + 1);
    if (buffer == NULL) { errno = ENOMEM; return -1; }
    memcpy(buffer, line, length);
    buffer[length] = '\n';
    pthread_mutex_lock(&send_lock);
    size_t sent = 0;
    int result = 0;
    while (sent < length + 1) {
        // MSG_NOSIGNAL: a device that went away must not kill the target with SIGPIPE.
        ssize_t n = send(channel_fd, buffer + sent, length + 1 - sent, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            result = -1;
            break;
        }
        sent += (size_t)n;
    }
    pthread_mutex_unlock(&send_lock);
    free(buffer);
    return result;
}

/// Reads the device's lines, hands each to Swift, then acknowledges it by its
/// sequence number (the line's first word): the device waits for that before it
/// suspends or ends the process, as iOS waits for the app's delegate to return.
static void *listen_loop(void *unused) {
    (void)unused;
    (void)agc_name_thread("lifecycle");
    char hello[64];
    snprintf(hello, sizeof hello, "hello %d", (int)getpid());
    (void)agc_lifecycle_send(hello);
    // Room for the device's longest line: its answer to an ask (at most
    // AGC_LIFECYCLE_LINE_LIMIT bytes; LifecycleAsk.swift).
    char buffer[AGC_LIFECYCLE_LINE_LIMIT + 1];
    size_t used = 0;
    for (;;) {
        ssize_t n = read(channel_fd, buffer + used, sizeof buffer - 1 - used);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {  // the device closed its end: nothing more will come
            if (agc_lifecycle_closed != NULL) agc_lifecycle_closed();
            return NULL;
        }
        used += (size_t)n;
        for (;;) {
            char *end = memchr(buffer, '\n', used);
            if (end == NULL) break;
            *end = '\0';
            if (agc_lifecycle_deliver != NULL) agc_lifecycle_deliver(buffer);
            char ack[96];
            size_t word = strcspn(buffer, " ");
            if (word > 40) word = 40;
            snprintf(ack, sizeof ack, "ack %.*s", (int)word, buffer);
            (void)agc_lifecycle_send(ack);
            size_t consumed = (size_t)(end - buffer) + 1;
            memmove(buffer, buffer + consumed, used - consumed);
            used -= consumed;
        }
        if (used == sizeof buffer - 1) used = 0;  // a line longer than any the device sends
    }
}

__attribute__((constructor)) static void agc_lifecycle_start(void) {
    const char *named = getenv("APPGROUP_LIFECYCLE_FD");
    if (named == NULL) return;
    int fd = atoi(named);
    // The variable is the device's message to this process only: a program the
    // target starts must not believe it has a channel.
    unsetenv("APPGROUP_LIFECYCLE_FD");
    if (fd < 3 || fcntl(fd, F_GETFD) < 0) return;
    (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    channel_fd = fd;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&listener_thread, &attributes, listen_loop, NULL) != 0) channel_fd = -1;
    pthread_attr_destroy(&attributes);
}

#else

int agc_socket_pair(int fds[2]) { (void)fds; errno = ENOSYS; return -1; }
int agc_lifecycle_listening(void) { return 0; }
int agc_lifecycle_on_listener_thread(void) { return 0; }
int agc_lifecycle_send(const char *line) { (void)line; errno = EBADF; return -1; }

#endif
