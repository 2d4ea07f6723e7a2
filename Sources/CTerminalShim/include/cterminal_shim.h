// Gives the terminal back on every way out of the live scenes (catctl load/edit
// --interactive): raw mode, the alternate screen, a hidden cursor and any pictures are
// undone on a normal exit (atexit), on exit() from anywhere, and from the handlers of
// the signals a crash raises (a Swift precondition traps with SIGILL on x86-64 and
// SIGTRAP on arm64; also SIGABRT, SIGSEGV, SIGBUS, SIGFPE). This is C, not Swift,
// because that code runs inside a signal handler, where only async-signal-safe calls
// (write, tcsetattr, dup2, read, lseek) are allowed and nothing may allocate or lock;
// Swift gives no such guarantee. SIGINT, SIGTERM and SIGHUP are not handled here: the
// executable's own handlers call ct_restore() before they exit.
#ifndef CTERMINAL_SHIM_H
#define CTERMINAL_SHIM_H

#include <stddef.h>

// Saves the settings of the terminal on `in_fd`, puts it in raw mode (no echo, no line
// editing, no signals from keys: Ctrl-C arrives as byte 3), writes `enter` (e.g. switch
// to the alternate screen, hide the cursor) to `out_fd`, and arms the restore paths with
// `restore` (at most 255 bytes), the bytes that undo `enter`. While the terminal is
// taken, what the process writes to stderr, when stderr is that terminal, is kept
// aside and written to it once the terminal is back (so an error or a crash report is
// seen after the alternate screen is gone, not lost with it).
// Returns 0, or -1 with errno set (not a terminal, or taken already).
int ct_take(int in_fd, int out_fd, const char *enter, size_t enter_len, const char *restore, size_t restore_len);

// Replaces the restore bytes (e.g. once kitty pictures have been drawn, so they are
// deleted too). At most 255 bytes; longer is cut.
void ct_set_restore(const char *restore, size_t restore_len);

// Gives the terminal back: writes the restore bytes, restores the saved settings, puts
// stderr back and writes to it what was kept aside. Does nothing when the terminal is
// not taken; safe to call more than once, and from a signal handler.
void ct_restore(void);

// Whether the terminal is taken now.
int ct_is_taken(void);

#endif
