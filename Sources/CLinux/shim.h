#ifndef THERMTOP_CLINUX_SHIM_H
#define THERMTOP_CLINUX_SHIM_H
// Linux headers that Swift's Glibc module does not include; glibc has the functions, so there
// is nothing to link.
#include <sys/timerfd.h>   // the read watchdog's timer
#include <sys/vfs.h>       // fstatfs: is an open file on sysfs?
#include <sys/syscall.h>
#include <malloc.h>        // malloc_trim: a retired reading thread hands back its arena's free pages
#include <unistd.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>

// The calling thread's kernel id (glibc's gettid() needs _GNU_SOURCE, which the Glibc module
// is not built with): the watchdog looks at a reading thread's state in /proc by it.
static inline int thermtop_gettid(void) { return (int)syscall(SYS_gettid); }

// pipe2(2) with O_NONBLOCK | O_CLOEXEC (glibc declares pipe2 only under _GNU_SOURCE): one call
// for a monitor's wake pipes instead of pipe and four fcntl.
static inline int thermtop_pipe_nonblocking(int fds[2]) {
    return (int)syscall(SYS_pipe2, fds, O_NONBLOCK | O_CLOEXEC);
}

// getdents64(2) (glibc declares it only under _GNU_SOURCE): a folder listed from a descriptor
// the reading layer keeps, to open the folder's files relative to it.
static inline long thermtop_getdents64(int fd, void *buffer, unsigned long size) {
    return syscall(SYS_getdents64, fd, buffer, size);
}

// A one-shot's read ticker (ReadingThread, "reads on the caller"): a CLOCK_MONOTONIC timer that
// sends a signal to the one thread reading, every `period_ns`. Its handler does nothing and is
// installed without SA_RESTART, so a read asleep interruptibly in the kernel (a FIFO with no
// writer, a hung network or FUSE file) returns EINTR at each tick, where the reader decides
// whether to give up; a read that never sleeps is not disturbed.
static inline int thermtop_read_tick_signal(void) { return SIGRTMIN + 2; }

// Static: each Swift module that calls into this header gets its own copy, so only one module
// (ThermtopCore's ReadTicker) installs it and asks whether it is installed.
static void thermtop_read_tick_handler(int signal) { (void)signal; }

// 1 when ticks can interrupt the calling thread's reads: the handler is ours (installed now if
// the signal had its default action; a program that handles the signal itself keeps it, and
// gets no ticks), and the thread does not block the signal.
static inline int thermtop_read_tick_ready(void) {
    int signal = thermtop_read_tick_signal();
    struct sigaction now;
    if (sigaction(signal, NULL, &now) != 0) return 0;
    if ((now.sa_flags & SA_SIGINFO) || now.sa_handler != thermtop_read_tick_handler) {
        if ((now.sa_flags & SA_SIGINFO) || now.sa_handler != SIG_DFL) return 0;
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = thermtop_read_tick_handler;
        sigemptyset(&action.sa_mask);
        if (sigaction(signal, &action, NULL) != 0) return 0;
    }
    sigset_t mask;
    if (pthread_sigmask(SIG_BLOCK, NULL, &mask) != 0) return 0;
    return sigismember(&mask, signal) == 0;
}

// Starts ticking at the calling thread (it alone gets the signal), the first tick a period from
// now. 0 and `*timer` on success.
static inline int thermtop_read_ticker_start(timer_t *timer, long long period_ns) {
    struct sigevent event;
    memset(&event, 0, sizeof event);
    event.sigev_notify = 4;  // SIGEV_THREAD_ID (glibc names it only under _GNU_SOURCE)
    event.sigev_signo = thermtop_read_tick_signal();
    event._sigev_un._tid = thermtop_gettid();
    if (timer_create(CLOCK_MONOTONIC, &event, timer) != 0) return -1;
    struct itimerspec spec;
    spec.it_interval.tv_sec = (time_t)(period_ns / 1000000000);
    spec.it_interval.tv_nsec = (long)(period_ns % 1000000000);
    spec.it_value = spec.it_interval;
    if (timer_settime(*timer, 0, &spec, NULL) != 0) {
        timer_delete(*timer);
        return -1;
    }
    return 0;
}

static inline void thermtop_read_ticker_stop(timer_t timer) { timer_delete(timer); }
#endif
