#ifndef THERMTOP_CLINUX_SHIM_H
#define THERMTOP_CLINUX_SHIM_H
// Linux headers that Swift's Glibc module does not include; glibc has the functions, so there
// is nothing to link.
#include <sys/vfs.h>       // fstatfs: is an open file on sysfs?
#include <sys/syscall.h>
#include <unistd.h>
#include <fcntl.h>
#include <poll.h>

// pipe2(2) with O_NONBLOCK | O_CLOEXEC (glibc declares pipe2 only under _GNU_SOURCE): one call
// for a monitor's wake pipes instead of pipe and four fcntl.
static inline int thermtop_pipe_nonblocking(int fds[2]) {
    return (int)syscall(SYS_pipe2, fds, O_NONBLOCK | O_CLOEXEC);
}
#endif
