#include "cshim_support.h"
#include <dlfcn.h>
#include <lcms2.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

static int cs_console = 2;  // see cs_console_fd
int cs_stderr_target(void);

int cs_write_all(int fd, const void *bytes, size_t count) {
    if (fd == 2) fd = cs_stderr_target();  // catctl's own stderr, also inside a quiet scope
    const unsigned char *p = bytes;
    while (count > 0) {
        ssize_t n = write(fd, p, count);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno ? errno : EIO;
        }
        if (n == 0) return EIO;  // cannot happen for count > 0 on a file or a pipe; never spin
        p += n;
        count -= (size_t)n;
    }
    return 0;
}

uint8_t *cs_copy(const uint8_t *bytes, size_t length) {
    uint8_t *copy = malloc(length ? length : 1);
    if (copy && length) memcpy(copy, bytes, length);
    return copy;
}

void cs_vformat(char *buffer, size_t size, const char *format, va_list args) {
    if (buffer && size) vsnprintf(buffer, size, format, args);
}

int cs_failed(cs_error *error, int code) {
    char *s = error->message;
    for (char *p = s; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] == ' ') s[--n] = '\0';
    error->code = code;
    return code;
}

int cs_vfail(cs_error *error, int code, const char *format, va_list args) {
    cs_vformat(error->message, sizeof error->message, format, args);
    return cs_failed(error, code);
}

int cs_fail(cs_error *error, int code, const char *format, ...) {
    va_list args;
    va_start(args, format);
    cs_vfail(error, code, format, args);
    va_end(args);
    return code;
}

void cs_format(char *buffer, size_t size, const char *format, ...) {
    va_list args;
    va_start(args, format);
    cs_vformat(buffer, size, format, args);
    va_end(args);
}

int cs_library_load(cs_library *library) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    if (library->state == 0) {
        void *handle = NULL;
        const char *reason = "no file name to try";
        for (const char *const *name = library->names; *name && !handle; name++) {
            handle = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
            if (!handle) reason = dlerror();
        }
        library->state = handle ? 1 : -1;
        if (!handle) cs_format(library->error, sizeof library->error, "%s", reason ? reason : "dlopen failed");
        for (size_t i = 0; handle && library->symbols[i]; i++) {
            dlerror();
            void *address = dlsym(handle, library->symbols[i]);
            if (!address) {
                const char *why = dlerror();
                cs_format(library->error, sizeof library->error, "%s: %s", library->symbols[i],
                          why ? why : "not found");
                library->state = -1;
                break;
            }
            library->slots[i] = address;
        }
    }
    int loaded = library->state == 1;
    pthread_mutex_unlock(&lock);
    return loaded;
}

int cs_libraries_load(cs_library *libraries, size_t count, char *why, size_t size) {
    for (size_t i = 0; i < count; i++) {
        if (!cs_library_load(&libraries[i])) {
            cs_format(why, size, "%s", libraries[i].error);
            return 0;
        }
    }
    return 1;
}

// ---------------------------------------------------------------- fd 2: catctl's and the libraries'

// Set by the sanitizer runtimes when they are linked (ASan, UBSan): their reports then go
// to the console descriptor, not into a quiet scope's memory file.
extern void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

static pthread_mutex_t cs_quiet_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t cs_console_once = PTHREAD_ONCE_INIT;
// Read by cs_write_all and by signal handlers: atomics, no lock.
static _Atomic int cs_held = -1;       // cs_stderr_hold's descriptor, or -1
static _Atomic int cs_quiet_depth;     // open quiet scopes (changed under cs_quiet_lock)
static int cs_quiet_file = -1;         // the memory file fd 2 points at while a scope is open
static char cs_chatter[CS_CHATTER_KEPT];
static size_t cs_chatter_length;

static void cs_route(void);

// A crash inside a quiet scope (a fault in a library) would send its report (Swift's
// backtracer, the kernel's words through the shell) into the memory file: fd 2 goes back to
// catctl's stderr first, then the handler that was there before runs (Swift's backtracer,
// a sanitizer's).
static const int cs_crash_signals[] = {SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE};
#define CS_CRASH_SIGNALS (sizeof cs_crash_signals / sizeof cs_crash_signals[0])
static struct sigaction cs_previous[CS_CRASH_SIGNALS];

// The last bytes a library printed before it crashed (libstdc++'s "terminate called...",
// libjxl's JXL_CHECK line), on fd 2 with every byte but printable ASCII and newlines as
// \ooo: async-signal-safe (pread, write), and never raw.
static void cs_replay_tail(void) {
    static const char head[] = "catctl: a library crashed; the last it printed:\n";
    off_t end = lseek(cs_quiet_file, 0, SEEK_END);
    if (end <= 0) return;
    (void)cs_write_all(2, head, sizeof head - 1);
    off_t at = end > 2048 ? end - 2048 : 0;
    unsigned char in[256];
    char out[256 * 4];
    while (at < end) {
        ssize_t n = pread(cs_quiet_file, in, sizeof in, at);
        if (n <= 0) break;
        at += n;
        size_t k = 0;
        for (ssize_t i = 0; i < n; i++) {
            unsigned char c = in[i];
            if (c == '\n' || (c >= 0x20 && c < 0x7f && c != '\\')) {
                out[k++] = (char)c;
            } else {
                out[k++] = '\\';
                out[k++] = (char)('0' + (c >> 6));
                out[k++] = (char)('0' + ((c >> 3) & 7));
                out[k++] = (char)('0' + (c & 7));
            }
        }
        (void)cs_write_all(2, out, k);
    }
    (void)cs_write_all(2, "\n", 1);
}

static void cs_on_crash(int sig, siginfo_t *info, void *context) {
    (void)context;
    int saved = errno;
    if (atomic_load(&cs_quiet_depth) > 0) {
        atomic_store(&cs_quiet_depth, 0);  // nothing is routed to the memory file again
        cs_route();
        cs_replay_tail();
    }
    // Whatever was there before handles it from now on, as if this handler never was: a
    // fault happens again on return; a raised or sent signal (abort()) is raised again.
    for (size_t i = 0; i < CS_CRASH_SIGNALS; i++)
        if (cs_crash_signals[i] == sig) sigaction(sig, &cs_previous[i], NULL);
    errno = saved;
    if (info != NULL && info->si_code <= 0) raise(sig);
}

static void cs_console_open(void) {
    int fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
    if (fd >= 0) cs_console = fd;
    if (__sanitizer_set_report_fd) __sanitizer_set_report_fd((void *)(intptr_t)cs_console);
    for (size_t i = 0; i < CS_CRASH_SIGNALS; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = cs_on_crash;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        sigaction(cs_crash_signals[i], &action, &cs_previous[i]);
    }
}

int cs_console_fd(void) {
    pthread_once(&cs_console_once, cs_console_open);
    return cs_console;
}

int cs_stderr_target(void) {
    int held = atomic_load(&cs_held);
    return held >= 0 ? held : cs_console;
}

// Points fd 2 where it belongs now: the memory file inside a quiet scope, else catctl's
// own stderr. Async-signal-safe (dup2 and atomics).
static void cs_route(void) {
    int target = atomic_load(&cs_quiet_depth) > 0 && cs_quiet_file >= 0 ? cs_quiet_file : cs_stderr_target();
    if (target != 2) dup2(target, 2);
}

void cs_stderr_hold(int fd) {
    atomic_store(&cs_held, fd);
    cs_route();
}

int cs_memory_file(const char *name) {
#if defined(__linux__) && defined(MFD_CLOEXEC)
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd >= 0) return fd;
#endif
    FILE *f = tmpfile();  // elsewhere: an unlinked temporary file
    if (!f) return -1;
    int fd = fcntl(fileno(f), F_DUPFD_CLOEXEC, 3);
    fclose(f);
    return fd;
}

// Appends the memory file's bytes to cs_chatter (keeping the last CS_CHATTER_KEPT) and
// empties it. Called with cs_quiet_lock held.
static void cs_collect(void) {
    off_t end = lseek(cs_quiet_file, 0, SEEK_END);
    if (end <= 0) return;
    off_t from = end > (off_t)CS_CHATTER_KEPT ? end - (off_t)CS_CHATTER_KEPT : 0;  // no more is kept
    char bytes[4096];
    for (off_t at = from; at < end;) {
        ssize_t n = pread(cs_quiet_file, bytes, sizeof bytes, at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        at += n;
        size_t k = (size_t)n;
        if (cs_chatter_length + k > CS_CHATTER_KEPT) {
            size_t drop = cs_chatter_length + k - CS_CHATTER_KEPT;
            if (drop > cs_chatter_length) drop = cs_chatter_length;
            memmove(cs_chatter, cs_chatter + drop, cs_chatter_length - drop);
            cs_chatter_length -= drop;
        }
        if (k > CS_CHATTER_KEPT - cs_chatter_length) k = CS_CHATTER_KEPT - cs_chatter_length;
        memcpy(cs_chatter + cs_chatter_length, bytes + ((size_t)n - k), k);
        cs_chatter_length += k;
    }
    // Opened O_APPEND: writers go on at the new end after the truncation. Should it fail,
    // the file keeps growing and the next collect reads only its tail.
    (void)!ftruncate(cs_quiet_file, 0);
}

int cs_quiet_begin(void) {
    cs_console_fd();
    if (cs_console == 2) return 0;  // fd 2 could not be copied (closed?): leave it alone
    pthread_mutex_lock(&cs_quiet_lock);
    if (cs_quiet_file < 0) {
        cs_quiet_file = cs_memory_file("catctl-library-chatter");
        if (cs_quiet_file >= 0) fcntl(cs_quiet_file, F_SETFL, fcntl(cs_quiet_file, F_GETFL) | O_APPEND);
    }
    int token = cs_quiet_file >= 0;
    if (token && atomic_fetch_add(&cs_quiet_depth, 1) == 0) {
        fflush(stderr);
        cs_route();
    }
    pthread_mutex_unlock(&cs_quiet_lock);
    return token;
}

void cs_quiet_end(int token) {
    if (!token) return;
    pthread_mutex_lock(&cs_quiet_lock);
    if (atomic_fetch_sub(&cs_quiet_depth, 1) == 1) {
        fflush(stderr);
        cs_route();
    }
    cs_collect();
    pthread_mutex_unlock(&cs_quiet_lock);
}

size_t cs_chatter_take(char *buffer, size_t size) {
    pthread_mutex_lock(&cs_quiet_lock);
    if (cs_quiet_file >= 0) cs_collect();
    size_t n = 0;
    if (buffer && size) {
        n = cs_chatter_length < size - 1 ? cs_chatter_length : size - 1;
        memcpy(buffer, cs_chatter + (cs_chatter_length - n), n);
        buffer[n] = '\0';
    }
    cs_chatter_length = 0;
    pthread_mutex_unlock(&cs_quiet_lock);
    return n;
}

int cs_cores(int max) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores < 1 ? 1 : cores > max ? max : (int)cores;
}

// ---------------------------------------------------------------- boxes

int cs_box_next(cs_span in, size_t *at, cs_box *box) { return cs_box_read(in, at, box, CS_BOX_SIZE0_IS_END); }

int cs_box_read(cs_span in, size_t *at, cs_box *box, unsigned flags) {
    if (*at >= in.n) return 0;
    size_t left = in.n - *at;
    if (left < 8) return -1;
    const uint8_t *p = in.p + *at;
    uint64_t size = (uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 | (uint64_t)p[2] << 8 | p[3];
    size_t header = 8;
    if (size == 1) {
        if (left < 16) return -1;
        size = 0;
        for (int i = 8; i < 16; i++) size = size << 8 | p[i];
        header = 16;
    } else if (size == 0 && (flags & CS_BOX_SIZE0_IS_END)) {
        size = left;
    }
    box->type = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
    if ((flags & CS_BOX_UUID) && box->type == CS_FOURCC('u', 'u', 'i', 'd')) header += 16;
    if (size < header || size > left) return -1;
    box->body = (cs_span){p + header, (size_t)size - header};
    *at += (size_t)size;
    return 1;
}

int cs_box_child(cs_span in, size_t skip, uint32_t type, cs_span *out) {
    size_t at = skip;
    cs_box box;
    while (cs_box_next(in, &at, &box) == 1)
        if (box.type == type) {
            *out = box.body;
            return 1;
        }
    return 0;
}

int cs_full_box(cs_span box, cs_span *payload, int *version, uint32_t *flags) {
    if (box.n < 4) return 0;
    if (version) *version = box.p[0];
    if (flags) *flags = (uint32_t)box.p[1] << 16 | (uint32_t)box.p[2] << 8 | box.p[3];
    *payload = (cs_span){box.p + 4, box.n - 4};
    return 1;
}

uint64_t cs_read(cs_reader *r, size_t bytes) {
    if (bytes > 8 || cs_left(r) < bytes) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; i++) v = v << 8 | r->in.p[r->at + i];
    r->at += bytes;
    return v;
}

void cs_skip(cs_reader *r, size_t bytes) {
    if (cs_left(r) < bytes) r->bad = 1;
    else r->at += bytes;
}

// ---------------------------------------------------------------- CMYK

void *cs_cmyk_transform(const uint8_t *icc, size_t length, int inverted, int rgba) {
    if (!icc || length < 132 || length > UINT32_MAX) return NULL;
    cmsHPROFILE cmyk = cmsOpenProfileFromMem(icc, (cmsUInt32Number)length);
    if (!cmyk) return NULL;
    cmsHTRANSFORM transform = NULL;
    if (cmsGetColorSpace(cmyk) == cmsSigCmykData) {
        cmsHPROFILE srgb = cmsCreate_sRGBProfile();
        if (srgb) {
            transform = cmsCreateTransform(cmyk, inverted ? TYPE_CMYK_8_REV : TYPE_CMYK_8, srgb,
                                           rgba ? TYPE_RGBA_8 : TYPE_RGB_8, INTENT_RELATIVE_COLORIMETRIC,
                                           cmsFLAGS_BLACKPOINTCOMPENSATION);
            cmsCloseProfile(srgb);
        }
    }
    cmsCloseProfile(cmyk);
    return transform;
}
