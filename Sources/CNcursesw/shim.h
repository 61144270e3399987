#ifndef THERMTOP_CNCURSESW_SHIM_H
#define THERMTOP_CNCURSESW_SHIM_H
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <locale.h>
#include <ncursesw/curses.h>
#endif
