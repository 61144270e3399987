#ifndef THERMTOP_CLINUX_SHIM_H
#define THERMTOP_CLINUX_SHIM_H
// Linux headers that Swift's Glibc module does not include; glibc has the functions, so there
// is nothing to link.
#include <sys/vfs.h>       // fstatfs: is an open file on sysfs?
#include <sys/syscall.h>
#include <unistd.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>   // the read watchdog's timer: no wakeup unless a read overruns

// pipe2(2) (glibc declares it only under _GNU_SOURCE): a pipe with its flags in one call
// instead of pipe and four fcntl. Swift code makes pipes through `Syscalls.pipe`.
static inline int thermtop_pipe2(int fds[2], int flags) {
    return (int)syscall(SYS_pipe2, fds, flags);
}

// The calling thread's name, as htop, top -H and /proc/PID/task/*/comm show it (at most 15
// bytes are kept). prctl(2) is variadic, which Swift cannot call.
static inline int thermtop_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}
#endif
