#define _GNU_SOURCE  // sigaction with SA_SIGINFO, mkstemp

#include "cterminal_shim.h"
#include "cshim_support.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static volatile sig_atomic_t taken = 0;
static int term_in = -1, term_out = -1;
static struct termios saved;
static char restore_bytes[256];
static volatile size_t restore_count = 0;
// stderr while the terminal is taken: a temporary file (CShimSupport's cs_stderr_hold).
static int kept_err = -1;
static int handlers_installed = 0;

static const int crash_signals[] = {SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE};
#define CRASH_SIGNALS (sizeof crash_signals / sizeof crash_signals[0])
// What was there before (Swift's backtracer, a sanitizer's handler): it runs after ours.
static struct sigaction previous[CRASH_SIGNALS];

// Best effort on the way out: a failure to write has nowhere to be reported.
static void write_all(int fd, const char *bytes, size_t count) { (void)cs_write_all(fd, bytes, count); }

void ct_restore(void) {
    if (!taken) return;
    taken = 0;
    write_all(term_out, restore_bytes, restore_count);
    // TCSAFLUSH: answers to catctl's queries not read yet are dropped, not left for the shell.
    tcsetattr(term_in, TCSAFLUSH, &saved);
    if (kept_err >= 0) {
        cs_stderr_hold(-1);
        if (lseek(kept_err, 0, SEEK_SET) == 0) {
            char buffer[4096];
            ssize_t n;
            while ((n = read(kept_err, buffer, sizeof buffer)) > 0) write_all(STDERR_FILENO, buffer, (size_t)n);
        }
        close(kept_err);
        kept_err = -1;
    }
}

int ct_is_taken(void) { return taken; }

// A crash: give the terminal back, then let the signal do what it would have done. A
// fault (a trap, a bad address) goes to the handler that was there before ours (Swift's
// backtracer, a sanitizer), and the faulting instruction, run again, ends the process. A
// signal sent by kill() would just return from that handler and carry on without the
// terminal: it gets the default action (the process ends, as it would have without us).
static void on_crash(int sig, siginfo_t *info, void *context) {
    (void)context;
    int saved_errno = errno;
    ct_restore();
    int sent = info != NULL && info->si_code <= 0;  // SI_USER, SI_QUEUE, SI_TKILL: not a fault
    for (size_t i = 0; i < CRASH_SIGNALS; i++) {
        if (crash_signals[i] != sig) continue;
        if (sent) {
            signal(sig, SIG_DFL);
        } else {
            sigaction(sig, &previous[i], NULL);
        }
    }
    errno = saved_errno;
    // A fault happens again when this handler returns, now to the previous handler, which
    // then sees the real fault; a sent signal is sent again, to the default action.
    if (sent) raise(sig);
}

static void restore_at_exit(void) { ct_restore(); }

void ct_set_restore(const char *restore, size_t restore_len) {
    if (restore_len > sizeof restore_bytes - 1) restore_len = sizeof restore_bytes - 1;
    restore_count = 0;
    memcpy(restore_bytes, restore, restore_len);
    restore_count = restore_len;
}

int ct_take(int in_fd, int out_fd, const char *enter, size_t enter_len, const char *restore, size_t restore_len) {
    if (taken) {
        errno = EBUSY;
        return -1;
    }
    if (!isatty(in_fd) || !isatty(out_fd)) {
        errno = ENOTTY;
        return -1;
    }
    if (tcgetattr(in_fd, &saved) != 0) return -1;
    struct termios raw = saved;
    raw.c_iflag &= ~(tcflag_t)(BRKINT | ICRNL | INPCK | ISTRIP | IXON);
    raw.c_lflag &= ~(tcflag_t)(ECHO | ICANON | IEXTEN | ISIG);
    raw.c_cflag |= CS8;
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    // Output processing stays on: "\n" still starts a new line.
    if (tcsetattr(in_fd, TCSANOW, &raw) != 0) return -1;
    term_in = in_fd;
    term_out = out_fd;
    ct_set_restore(restore, restore_len);

    if (isatty(cs_console_fd())) {
        char path[] = "/tmp/catctl-stderr-XXXXXX";
        int fd = mkstemp(path);
        if (fd >= 0) {
            unlink(path);
            kept_err = fd;
            cs_stderr_hold(fd);
        }
    }
    if (!handlers_installed) {
        handlers_installed = 1;
        atexit(restore_at_exit);
        for (size_t i = 0; i < CRASH_SIGNALS; i++) {
            struct sigaction action;
            memset(&action, 0, sizeof action);
            action.sa_sigaction = on_crash;
            action.sa_flags = SA_SIGINFO | SA_ONSTACK;  // on the alternate stack when there is one (a stack overflow)
            sigemptyset(&action.sa_mask);
            sigaction(crash_signals[i], &action, &previous[i]);
        }
    }
    taken = 1;
    write_all(out_fd, enter, enter_len);
    return 0;
}
