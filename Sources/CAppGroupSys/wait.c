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
