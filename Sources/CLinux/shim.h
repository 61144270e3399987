#ifndef THERMTOP_CLINUX_SHIM_H
#define THERMTOP_CLINUX_SHIM_H
// Linux headers that Swift's Glibc module does not include; glibc has the functions, so there
// is nothing to link.
#include <sys/timerfd.h>   // the read watchdog's timer
#include <sys/vfs.h>       // fstatfs: is an open file on sysfs?
#endif
