#ifndef THERMTOP_CLINUX_SHIM_H
#define THERMTOP_CLINUX_SHIM_H
// Linux headers that Swift's Glibc module does not include; glibc has the functions, so there
// is nothing to link.
#include <sys/timerfd.h>   // the read watchdog's timer
#include <sys/vfs.h>       // fstatfs: is an open file on sysfs?
#include <sys/syscall.h>
#include <malloc.h>        // malloc_trim: a retired reading thread hands back its arena's free pages
#include <unistd.h>

// The calling thread's kernel id (glibc's gettid() needs _GNU_SOURCE, which the Glibc module
// is not built with): the watchdog looks at a reading thread's state in /proc by it.
static inline int thermtop_gettid(void) { return (int)syscall(SYS_gettid); }

// getdents64(2) (glibc declares it only under _GNU_SOURCE): a folder listed from a descriptor
// the reading layer keeps, to open the folder's files relative to it.
static inline long thermtop_getdents64(int fd, void *buffer, unsigned long size) {
    return syscall(SYS_getdents64, fd, buffer, size);
}
#endif
