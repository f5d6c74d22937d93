// A guard for shared mappings of files that another process may truncate (the
// device's signal table, which every sandboxed target may write): an access past
// the file's end raises SIGBUS, whose default action kills the process. The guard
// turns such a fault into zero-filled private memory over the whole guarded
// range, and flags the range, so that the access completes and the owner of the
// mapping sees the flag and maps the file again. No check before an access can do
// this: the file may shrink between the check and the access.
#include "CAppGroupSys.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define AGC_GUARD_SLOTS 256

struct agc_guarded_range {
    uintptr_t base;   // 0: a free slot
    size_t length;
    int faulted;
};

static struct agc_guarded_range guarded[AGC_GUARD_SLOTS];
static struct sigaction previous_bus;
static int guard_installed;

static void agc_bus_handler(int signal_number, siginfo_t *info, void *context) {
    // si_code > 0: raised by the kernel for this thread's own access, never by
    // kill(2) or sigqueue(2), which another process could aim at any address.
    if (info != NULL && info->si_code > 0) {
        uintptr_t address = (uintptr_t)info->si_addr;
        for (int i = 0; i < AGC_GUARD_SLOTS; i++) {
            uintptr_t base = __atomic_load_n(&guarded[i].base, __ATOMIC_ACQUIRE);
            size_t length = __atomic_load_n(&guarded[i].length, __ATOMIC_ACQUIRE);
            if (base == 0 || address < base || address - base >= length) continue;
            // mmap is a system call: safe in a handler. The faulting instruction
            // then runs again on zero-filled memory.
            void *replaced = mmap((void *)base, length, PROT_READ | PROT_WRITE,
                                  MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (replaced != MAP_FAILED) {
                __atomic_store_n(&guarded[i].faulted, 1, __ATOMIC_RELEASE);
                return;
            }
            break;
        }
    }
    // Not a guarded range: what was there before us decides.
    if (previous_bus.sa_flags & SA_SIGINFO) {
        if (previous_bus.sa_sigaction != NULL) {
            previous_bus.sa_sigaction(signal_number, info, context);
            return;
        }
    } else if (previous_bus.sa_handler != SIG_DFL && previous_bus.sa_handler != SIG_IGN && previous_bus.sa_handler != NULL) {
        previous_bus.sa_handler(signal_number);
        return;
    }
    if (!(previous_bus.sa_flags & SA_SIGINFO) && previous_bus.sa_handler == SIG_IGN && (info == NULL || info->si_code <= 0)) {
        return; // a sent SIGBUS the process ignored before
    }
    // The default action: a fault happens again on return and kills the process;
    // a signal sent by another process is raised again, now unhandled.
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(SIGBUS, &fallback, NULL);
    if (info == NULL || info->si_code <= 0) raise(SIGBUS);
}

static int agc_guard_install(void) {
    struct sigaction current;
    if (sigaction(SIGBUS, NULL, &current) != 0) return -1;
    if (__atomic_load_n(&guard_installed, __ATOMIC_ACQUIRE) && (current.sa_flags & SA_SIGINFO)
        && current.sa_sigaction == agc_bus_handler) {
        return 0;
    }
    // First time, or someone installed another handler since: chain to it.
    struct sigaction ours;
    memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = agc_bus_handler;
    ours.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&ours.sa_mask);
    struct sigaction before;
    if (sigaction(SIGBUS, &ours, &before) != 0) return -1;
    if (!((before.sa_flags & SA_SIGINFO) && before.sa_sigaction == agc_bus_handler)) previous_bus = before;
    __atomic_store_n(&guard_installed, 1, __ATOMIC_RELEASE);
    return 0;
}

int agc_guard_mapping(void *base, size_t length) {
    static int lock;
    while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE)) {}
    int result = agc_guard_install();
    if (result == 0) {
        result = -1;
        for (int i = 0; i < AGC_GUARD_SLOTS; i++) {
            if (__atomic_load_n(&guarded[i].base, __ATOMIC_ACQUIRE) != 0) continue;
            __atomic_store_n(&guarded[i].faulted, 0, __ATOMIC_RELEASE);
            __atomic_store_n(&guarded[i].length, length, __ATOMIC_RELEASE);
            __atomic_store_n(&guarded[i].base, (uintptr_t)base, __ATOMIC_RELEASE);
            result = i;
            break;
        }
    }
    __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
    return result;
}

void agc_unguard_mapping(int slot) {
    if (slot < 0 || slot >= AGC_GUARD_SLOTS) return;
    __atomic_store_n(&guarded[slot].base, 0, __ATOMIC_RELEASE);
}

int agc_guard_take_fault(int slot) {
    if (slot < 0 || slot >= AGC_GUARD_SLOTS) return 0;
    return __atomic_exchange_n(&guarded[slot].faulted, 0, __ATOMIC_ACQ_REL);
}

void *agc_map_shared_at(void *base, size_t length, int fd) {
    return mmap(base, length, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_SHARED, fd, 0);
}
