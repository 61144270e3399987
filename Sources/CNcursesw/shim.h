#ifndef THERMTOP_CNCURSESW_SHIM_H
#define THERMTOP_CNCURSESW_SHIM_H
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <locale.h>
#include <langinfo.h>
#include <stdio.h>
#include <ncursesw/curses.h>
#include <ncursesw/term.h>

/* Swift 6 cannot import function-like macros, and refuses to read C globals such as
   stdscr, stdout, COLORS or COLOR_PAIRS (not concurrency-safe). These wrappers are
   the only way ThermtopTerminal reaches them. */

static inline WINDOW *thermtop_stdscr(void) { return stdscr; }
static inline FILE *thermtop_stdout(void) { return stdout; }
static inline FILE *thermtop_stdin(void) { return stdin; }
static inline FILE *thermtop_stderr(void) { return stderr; }
static inline int thermtop_colors(void) { return COLORS; }
static inline int thermtop_color_pairs(void) { return COLOR_PAIRS; }

static inline attr_t thermtop_attr_normal(void) { return A_NORMAL; }
static inline attr_t thermtop_attr_bold(void) { return A_BOLD; }
static inline attr_t thermtop_attr_dim(void) { return A_DIM; }
static inline attr_t thermtop_attr_reverse(void) { return A_REVERSE; }
static inline attr_t thermtop_attr_underline(void) { return A_UNDERLINE; }

static inline int thermtop_color_pair(int pair) { return (int)COLOR_PAIR(pair); }
static inline int thermtop_key_f(int n) { return KEY_F(n); }

static inline void thermtop_getmaxyx(WINDOW *win, int *y, int *x) {
    int yy, xx;
    getmaxyx(win, yy, xx);
    *y = yy;
    *x = xx;
}

/* The locale's character set, e.g. "UTF-8" or "ANSI_X3.4-1968". */
static inline const char *thermtop_codeset(void) { return nl_langinfo(CODESET); }

/* Loads the terminfo entry for `name` (NULL means $TERM) without initialising curses,
   then frees it again. Returns setupterm's errret: 1 usable, 0 unknown or generic
   terminal, -1 no terminfo database; 2 means setupterm failed although errret said 1
   (a hardcopy terminal); 3 means the entry loads but cannot address the cursor
   (TERM=dumb: newterm accepts it, then draws garbage). Never exits the process,
   unlike initscr. */
static inline int thermtop_probe_terminal(const char *name, int fd) {
    int err = -2;
    int rc = setupterm(name, fd, &err);
    int addressable = 0;
    if (rc == OK) {
        char *cup = tigetstr("cup");
        addressable = cup != NULL && cup != (char *)-1;
    }
    TERMINAL *loaded = set_curterm(NULL);
    if (loaded != NULL) del_curterm(loaded);
    if (rc != OK && err == 1) return 2;
    if (rc == OK && !addressable) return 3;
    return err;
}

/* A terminfo string capability, or NULL when the terminal lacks it (tigetstr returns
   (char *)-1 for "not a string capability", which Swift must never dereference). */
static inline const char *thermtop_tigetstr(const char *cap) {
    char *s = tigetstr(cap);
    if (s == NULL || s == (char *)-1) return NULL;
    return s;
}

/* Mouse: the events thermtop asks for (buttons, the wheel, and motion so that terminals
   report every button: tmux then sets mouse_any_flag), and one event decoded.
   `kind`: 1 left button down, 2 wheel up, 3 wheel down, 0 anything else. */
static inline int thermtop_enable_mouse(void) {
    mouseinterval(0);
    return mousemask(ALL_MOUSE_EVENTS | REPORT_MOUSE_POSITION, (mmask_t *)0) != 0;
}

static inline int thermtop_read_mouse(int *x, int *y, int *kind) {
    MEVENT e;
    if (getmouse(&e) != OK) return 0;
    *x = e.x;
    *y = e.y;
    *kind = 0;
    if (e.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED)) *kind = 1;
    else if (e.bstate & BUTTON4_PRESSED) *kind = 2;
#if NCURSES_MOUSE_VERSION > 1
    else if (e.bstate & BUTTON5_PRESSED) *kind = 3;
#endif
    return 1;
}

#endif
