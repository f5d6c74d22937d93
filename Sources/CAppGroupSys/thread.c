// The calling thread's name as the kernel, ps, gdb and /proc show it.
#define _GNU_SOURCE
#include "CAppGroupSys.h"

#include <pthread.h>
#include <string.h>

int agc_name_thread(const char *name) {
    char cut[16];
    size_t length = strlen(name);
    if (length > 15) {
        length = 15;
        // Back off to the start of a UTF-8 sequence (continuation bytes are 10xxxxxx).
        while (length > 0 && ((unsigned char)name[length] & 0xC0) == 0x80) length--;
    }
    memcpy(cut, name, length);
    cut[length] = 0;
#if defined(__linux__)
    return pthread_setname_np(pthread_self(), cut);
#elif defined(__APPLE__)
    return pthread_setname_np(cut);
#else
    return 0;
#endif
}
