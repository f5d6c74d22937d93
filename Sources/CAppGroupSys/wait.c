// waitid with WNOWAIT: learns how a child ended without reaping it, so that the
// owner of the child (Foundation's Process) still reaps it and its pid cannot be
// reused while the caller may still signal it.
#include "CAppGroupSys.h"

#include <errno.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>

int agc_wait_exit(int pid, int *killed, int *status) {
    siginfo_t info;
    for (;;) {
        info.si_pid = 0;
        if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) == 0) break;
        if (errno != EINTR) return -1;
    }
    *killed = (info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED) ? 1 : 0;
    *status = info.si_status;
    return 0;
}

#ifdef __linux__
#include <sys/prctl.h>
#endif

int agc_become_subreaper(void) {
#ifdef __linux__
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : -1;
#else
    errno = ENOSYS;
    return -1;
#endif
}

int agc_reap_if_ended(int pid) {
    int status;
    for (;;) {
        pid_t reaped = waitpid((pid_t)pid, &status, WNOHANG);
        if (reaped == (pid_t)pid) return 1;
        if (reaped == 0) return 0;
        if (errno != EINTR) return -1;
    }
}
