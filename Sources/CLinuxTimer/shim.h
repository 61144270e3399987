#ifndef THERMTOP_CLINUXTIMER_SHIM_H
#define THERMTOP_CLINUXTIMER_SHIM_H
// timerfd (glibc, no library to link): Swift's Glibc module does not include <sys/timerfd.h>.
#include <sys/timerfd.h>
#endif
