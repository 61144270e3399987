#ifndef THERMTOP_CSYSTEMD_SHIM_H
#define THERMTOP_CSYSTEMD_SHIM_H
/* sd-bus from libsystemd: the D-Bus client thermtop uses to follow power-profiles-daemon
   (and tuned-ppd). Only sd-bus.h is needed; the rest of libsystemd stays unused. */
#include <systemd/sd-bus.h>
#endif
