#ifndef THERMTOP_CLINUX_SHIM_H
#define THERMTOP_CLINUX_SHIM_H
// Linux headers that Swift's Glibc module does not include; glibc has the functions, so there
// is nothing to link.
#include <sys/vfs.h>       // fstatfs: is an open file on sysfs?
#include <sys/syscall.h>
#include <unistd.h>
#include <fcntl.h>
#include <poll.h>

// pipe2(2) (glibc declares it only under _GNU_SOURCE): a pipe with its flags in one call
// instead of pipe and four fcntl. Swift code makes pipes through `Syscalls.pipe`.
static inline int thermtop_pipe2(int fds[2], int flags) {
    return (int)syscall(SYS_pipe2, fds, flags);
}
#endif
