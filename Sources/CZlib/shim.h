#ifndef THERMTOP_CZLIB_SHIM_H
#define THERMTOP_CZLIB_SHIM_H
#include <zlib.h>
#endif
