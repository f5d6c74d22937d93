// Narrows Swift's cooperative pool to one thread, for `.ci/run`'s second test run
// (the Linux stand-in for Darwin's LIBDISPATCH_COOPERATIVE_POOL_STRICT=1).
//
// On Linux the pool is a Dispatch queue as wide as the machine's logical CPUs,
// which Dispatch reads with sysconf; preloaded, this answers 1 (or
// $NARROW_POOL_CPUS), so that a test run shows what a smaller machine, or a
// pool held by blocked tests, does. Nothing else is changed.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

long sysconf(int name) {
    static long (*real)(int);
    if (!real) real = (long (*)(int))dlsym(RTLD_NEXT, "sysconf");
    if (name == _SC_NPROCESSORS_CONF || name == _SC_NPROCESSORS_ONLN) {
        const char *count = getenv("NARROW_POOL_CPUS");
        return count ? atol(count) : 1;
    }
    return real(name);
}
