// The shared signal table's word operations: atomics on memory mapped by several
// processes, and the futex calls that sleep on and wake such a word. Swift's
// Synchronization.Atomic cannot live at an address in a shared mapping, and glibc
// has no futex wrapper.
#include "CAppGroupSys.h"

#include <errno.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

uint32_t agc_atomic_load32(const uint32_t *word) { return __atomic_load_n(word, __ATOMIC_SEQ_CST); }

uint32_t agc_atomic_add32(uint32_t *word, uint32_t value) { return __atomic_add_fetch(word, value, __ATOMIC_SEQ_CST); }

uint32_t agc_atomic_sub32(uint32_t *word, uint32_t value) { return __atomic_sub_fetch(word, value, __ATOMIC_SEQ_CST); }

uint64_t agc_atomic_load64(const uint64_t *word) { return __atomic_load_n(word, __ATOMIC_SEQ_CST); }

int agc_atomic_cas64(uint64_t *word, uint64_t expected, uint64_t desired) {
    return __atomic_compare_exchange_n(word, &expected, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) ? 1 : 0;
}

int agc_futex_wait(uint32_t *word, uint32_t expected, int64_t timeout_ns) {
#ifdef __linux__
    struct timespec timeout = { .tv_sec = timeout_ns / 1000000000, .tv_nsec = timeout_ns % 1000000000 };
    // Not FUTEX_PRIVATE_FLAG: the word is in a MAP_SHARED mapping that other
    // processes wait on and wake too.
    return (int)syscall(SYS_futex, word, FUTEX_WAIT, expected, &timeout, NULL, 0);
#else
    (void)word; (void)expected;
    usleep((useconds_t)(timeout_ns > 10000000 ? 10000 : timeout_ns / 1000));
    errno = ETIMEDOUT;
    return -1;
#endif
}

int agc_futex_wake(uint32_t *word, int count) {
#ifdef __linux__
    return (int)syscall(SYS_futex, word, FUTEX_WAKE, count, NULL, NULL, 0);
#else
    (void)word; (void)count;
    return 0;
#endif
}
