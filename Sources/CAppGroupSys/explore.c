// The exploring scheduler's wire (AppGroupSystem's Exploration.swift and
// AppGroupSimulation's ExploringScheduler.swift): a target process asks before
// each coordinated step and waits for its turn; the test process decides.
//
// In the exploration directory (APPGROUP_EXPLORE, writable in the sandbox):
//   requests      a FIFO the scheduler made; a process writes one line per step,
//                 "<pid>\t<step>\t<path>\n" (under PIPE_BUF bytes, so atomic)
//   grant-<pid>   a FIFO the process makes before its first step; the scheduler
//                 writes one byte to it for each step it grants
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int agc_explore_flag = 0;

static const char *agc_explore_directory = NULL;
static pthread_mutex_t agc_explore_mutex = PTHREAD_MUTEX_INITIALIZER;
static int agc_explore_request_fd = -1;
static int agc_explore_grant_fd = -1;
static int agc_explore_deadline_ms = 30000;

__attribute__((constructor)) static void agc_explore_from_environment(void) {
    const char *directory = getenv("APPGROUP_EXPLORE");
    if (directory == NULL || directory[0] == 0) return;
    agc_explore_directory = directory;
    const char *deadline = getenv("APPGROUP_EXPLORE_DEADLINE_MS");
    if (deadline != NULL && atoi(deadline) > 0) agc_explore_deadline_ms = atoi(deadline);
    agc_explore_flag = 1;
}

static void agc_explore_give_up(const char *why) {
    __atomic_store_n(&agc_explore_flag, 0, __ATOMIC_RELAXED);
    if (agc_explore_request_fd >= 0) close(agc_explore_request_fd);
    if (agc_explore_grant_fd >= 0) close(agc_explore_grant_fd);
    agc_explore_request_fd = agc_explore_grant_fd = -1;
    dprintf(2, "AppGroupExplore: process %d runs freely from now on: %s\n", (int)getpid(), why);
}

static int agc_explore_connect(void) {
    char path[4096];
    snprintf(path, sizeof path, "%s/grant-%d", agc_explore_directory, (int)getpid());
    if (mkfifo(path, 0600) != 0 && errno != EEXIST) return -1;
    // Read and write: opening never waits for a writer, and the FIFO never reads end-of-file.
    agc_explore_grant_fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
    if (agc_explore_grant_fd < 0) return -1;
    snprintf(path, sizeof path, "%s/requests", agc_explore_directory);
    // Nonblocking: ENXIO when the scheduler has not opened it (gone, or never there).
    agc_explore_request_fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK);
    return agc_explore_request_fd < 0 ? -1 : 0;
}

int agc_explore_step(const char *step, const char *item) {
    if (!agc_explore_enabled()) return 1;
    pthread_mutex_lock(&agc_explore_mutex);
    if (!agc_explore_enabled()) { pthread_mutex_unlock(&agc_explore_mutex); return 1; }
    if (agc_explore_request_fd < 0 && agc_explore_connect() != 0) {
        char why[160];
        snprintf(why, sizeof why, "the scheduler cannot be reached (%s)", strerror(errno));
        agc_explore_give_up(why);
        pthread_mutex_unlock(&agc_explore_mutex);
        return 1;
    }
    char line[1024];
    int length = snprintf(line, sizeof line, "%d\t%s\t%.900s\n", (int)getpid(), step, item);
    if (length >= (int)sizeof line) { length = (int)sizeof line - 1; line[length - 1] = '\n'; }
    ssize_t written;
    do { written = write(agc_explore_request_fd, line, (size_t)length); } while (written < 0 && errno == EINTR);
    if (written != length) {
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
        struct pollfd ready = { .fd = agc_explore_grant_fd, .events = POLLIN };
        int polled = poll(&ready, 1, (int)(agc_explore_deadline_ms - waited));
        if (polled < 0 && errno != EINTR) { agc_explore_give_up("poll failed"); break; }
        if (polled <= 0) continue;
        char byte;
        ssize_t got = read(agc_explore_grant_fd, &byte, 1);
        if (got == 1) { pthread_mutex_unlock(&agc_explore_mutex); return 0; }
        if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        agc_explore_give_up("the turn could not be read");
        break;
    }
    pthread_mutex_unlock(&agc_explore_mutex);
    return 1;
}

int agc_explore_serve(const char *directory) {
    char path[4096];
    snprintf(path, sizeof path, "%s/requests", directory);
    if (mkfifo(path, 0600) != 0 && errno != EEXIST) return -1;
    return open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
}

long agc_explore_read(int fd, char *buffer, unsigned long capacity, int timeout_ms) {
    struct pollfd ready = { .fd = fd, .events = POLLIN };
    int polled = poll(&ready, 1, timeout_ms);
    if (polled <= 0) return polled < 0 && errno != EINTR ? -1 : 0;
    ssize_t got = read(fd, buffer, capacity);
    if (got < 0) return errno == EAGAIN || errno == EINTR ? 0 : -1;
    return (long)got;
}

int agc_explore_grant(const char *directory, int pid) {
    char path[4096];
    snprintf(path, sizeof path, "%s/grant-%d", directory, pid);
    int fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return -1;
    char byte = 1;
    ssize_t written;
    do { written = write(fd, &byte, 1); } while (written < 0 && errno == EINTR);
    close(fd);
    return written == 1 ? 0 : -1;
}
