// The exploring scheduler's wire (AppGroupSystem's Exploration.swift and
// AppGroupSimulation's ExploringScheduler.swift): a target process asks before
// each coordinated step and waits for its turn; the test process decides.
//
// The scheduler listens on a stream socket, `scheduler` in the exploration
// directory (APPGROUP_EXPLORE), a directory no target may write. A process
// connects once and checks that the listener is the device's own (its pid, from
// the kernel, is APPGROUP_EXPLORE_SCHEDULER); then it writes one line per step,
// "<step>\t<path>\n", and waits for one byte back. The scheduler knows who asks
// from the kernel (SO_PEERCRED at connect), never from what a line says, and
// grants on that process's own connection, where no other process can write.
// A process that cannot reach the scheduler, or waits longer than the deadline,
// stops asking (one line on standard error) and runs freely: never a hang.
#define _GNU_SOURCE
#include "CAppGroupSys.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int agc_explore_flag = 0;

static const char *agc_explore_directory = NULL;
static pthread_mutex_t agc_explore_mutex = PTHREAD_MUTEX_INITIALIZER;
static int agc_explore_fd = -1;
// The process that connected: a child forked since has a copy of the descriptor
// that the kernel counts as the parent's, so it connects anew.
static pid_t agc_explore_owner = 0;
static pid_t agc_explore_scheduler = 0;
static int agc_explore_deadline_ms = 30000;

__attribute__((constructor)) static void agc_explore_from_environment(void) {
    const char *directory = getenv("APPGROUP_EXPLORE");
    if (directory == NULL || directory[0] == 0) return;
    agc_explore_directory = directory;
    const char *deadline = getenv("APPGROUP_EXPLORE_DEADLINE_MS");
    if (deadline != NULL && atoi(deadline) > 0) agc_explore_deadline_ms = atoi(deadline);
    const char *scheduler = getenv("APPGROUP_EXPLORE_SCHEDULER");
    if (scheduler != NULL) agc_explore_scheduler = (pid_t)atoi(scheduler);
    agc_explore_flag = 1;
}

static void agc_explore_give_up(const char *why) {
    __atomic_store_n(&agc_explore_flag, 0, __ATOMIC_RELAXED);
    if (agc_explore_fd >= 0) close(agc_explore_fd);
    agc_explore_fd = -1;
    dprintf(2, "AppGroupExplore: process %d runs freely from now on: %s\n", (int)getpid(), why);
}

// The socket's address: its path, or, when that is longer than an address holds,
// the same file through /proc/self/fd and a descriptor of the directory (`*held`,
// which the caller closes once bound or connected).
static int agc_explore_address(const char *directory, struct sockaddr_un *address, int *held) {
    *held = -1;
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    int length = snprintf(address->sun_path, sizeof address->sun_path, "%s/scheduler", directory);
    if (length > 0 && length < (int)sizeof address->sun_path) return 0;
    *held = open(directory, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (*held < 0) return -1;
    snprintf(address->sun_path, sizeof address->sun_path, "/proc/self/fd/%d/scheduler", *held);
    return 0;
}

static int agc_explore_connect(const char **why) {
    struct sockaddr_un address;
    int held;
    *why = "the scheduler cannot be reached";
    if (agc_explore_address(agc_explore_directory, &address, &held) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int connected = fd < 0 ? -1 : connect(fd, (struct sockaddr *)&address, sizeof address);
    int saved = errno;
    if (held >= 0) close(held);
    if (connected != 0) {
        if (fd >= 0) close(fd);
        errno = saved;
        return -1;
    }
    // Whoever listens there must be the device's scheduler: a process that put a
    // socket of its own in its place is not obeyed.
    struct ucred peer;
    socklen_t size = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0 || agc_explore_scheduler <= 0 || peer.pid != agc_explore_scheduler) {
        close(fd);
        *why = "the socket at the scheduler's place is not the device's scheduler";
        errno = EPERM;
        return -1;
    }
    agc_explore_fd = fd;
    agc_explore_owner = getpid();
    return 0;
}

static int agc_explore_send(const char *line, size_t length) {
    size_t sent = 0;
    while (sent < length) {
        ssize_t written = send(agc_explore_fd, line + sent, length - sent, MSG_NOSIGNAL);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return -1;
        sent += (size_t)written;
    }
    return 0;
}

int agc_explore_step(const char *step, const char *item) {
    if (!agc_explore_enabled()) return 1;
    pthread_mutex_lock(&agc_explore_mutex);
    if (!agc_explore_enabled()) { pthread_mutex_unlock(&agc_explore_mutex); return 1; }
    if (agc_explore_fd >= 0 && agc_explore_owner != getpid()) {
        close(agc_explore_fd); // the parent's connection, copied by fork
        agc_explore_fd = -1;
    }
    const char *failure = NULL;
    if (agc_explore_fd < 0 && agc_explore_connect(&failure) != 0) {
        char why[200];
        snprintf(why, sizeof why, "%s (%s)", failure, strerror(errno));
        agc_explore_give_up(why);
        pthread_mutex_unlock(&agc_explore_mutex);
        return 1;
    }
    char line[1024];
    int length = snprintf(line, sizeof line, "%s\t%.900s\n", step, item);
    if (length >= (int)sizeof line) { length = (int)sizeof line - 1; line[length - 1] = '\n'; }
    if (agc_explore_send(line, (size_t)length) != 0) {
        agc_explore_give_up("the scheduler stopped listening");
        pthread_mutex_unlock(&agc_explore_mutex);
        return 1;
    }
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long waited = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (waited >= agc_explore_deadline_ms) {
            agc_explore_give_up("no turn came before the deadline (APPGROUP_EXPLORE_DEADLINE_MS)");
            break;
        }
        struct pollfd ready = { .fd = agc_explore_fd, .events = POLLIN };
        int polled = poll(&ready, 1, (int)(agc_explore_deadline_ms - waited));
        if (polled < 0 && errno != EINTR) { agc_explore_give_up("poll failed"); break; }
        if (polled <= 0) continue;
        char byte;
        ssize_t got = recv(agc_explore_fd, &byte, 1, 0);
        if (got == 1) { pthread_mutex_unlock(&agc_explore_mutex); return 0; }
        if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        agc_explore_give_up(got == 0 ? "the scheduler ended" : "the turn could not be read");
        break;
    }
    pthread_mutex_unlock(&agc_explore_mutex);
    return 1;
}

long agc_explore_receive(int fd, char *buffer, unsigned long capacity) {
    ssize_t got;
    do { got = recv(fd, buffer, capacity, 0); } while (got < 0 && errno == EINTR);
    return (long)got;
}

int agc_explore_grant(int fd) {
    char byte = 1;
    ssize_t written;
    do { written = send(fd, &byte, 1, MSG_NOSIGNAL | MSG_DONTWAIT); } while (written < 0 && errno == EINTR);
    return written == 1 ? 0 : -1;
}
