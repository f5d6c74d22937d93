// The trace's flag, clock and thread id (AppGroupSystem's Tracing.swift records).
#define _GNU_SOURCE
#include "CAppGroupSys.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

int agc_trace_flag = 0;

// Before main and before any Swift code: a spawned target whose environment asks
// for a trace records from its first coordinated operation on, and the flag is a
// plain load from then on (no lazy initialisation on the hot paths).
__attribute__((constructor)) static void agc_trace_from_environment(void) {
    const char *directory = getenv("APPGROUP_TRACE");
    if (directory != NULL && directory[0] != 0) agc_trace_flag = 1;
}

void agc_trace_set(int on) { __atomic_store_n(&agc_trace_flag, on ? 1 : 0, __ATOMIC_RELAXED); }

uint64_t agc_monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

// Cached per thread: gettid is a real system call, and an event must cost well
// under a microsecond.
static __thread int agc_cached_thread_id = 0;

int agc_thread_id(void) {
#if defined(__linux__)
    if (agc_cached_thread_id == 0) agc_cached_thread_id = (int)syscall(SYS_gettid);
    return agc_cached_thread_id;
#else
    return 0;
#endif
}
