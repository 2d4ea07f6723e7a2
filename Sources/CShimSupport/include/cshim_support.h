// What every C shim needs the same way, written once.
#ifndef CSHIM_SUPPORT_H
#define CSHIM_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

// Writes all of bytes[0..count) to fd, retrying on EINTR and short writes. Returns 0, or
// the errno of the failure (EIO when write(2) wrote nothing). Async-signal-safe: only
// write(2) and errno, so the terminal shim's signal handlers may call it.
int cs_write_all(int fd, const void *bytes, size_t count);

// A copy of bytes[0..length) in new memory (one byte when length is 0, so the pointer is
// valid), or NULL when out of memory: what each decoder keeps of the file it was given.
uint8_t *cs_copy(const uint8_t *bytes, size_t length);

// vsnprintf / snprintf into a message buffer, doing nothing when there is none.
void cs_vformat(char *buffer, size_t size, const char *format, va_list args);
void cs_format(char *buffer, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));

// A shared library whose functions are looked up when first needed (dlopen), so that
// catctl starts without loading what a run does not use: libheif with its AV1 and HEVC
// codecs and libjxl cost about 11 ms of every start, libcurl with its TLS and protocol
// libraries about 5 (measured with a C program linking them). A shim lists the functions
// it calls (its X-macro list) and calls them through the filled table.
typedef struct cs_library {
    const char *const *names;    // file names to try, in order, NULL-terminated
    const char *const *symbols;  // the functions, NULL-terminated
    void **slots;                // where each symbol's address goes (a struct of pointers)
    int state;                   // 0: not tried; 1: loaded; -1: failed (error says why)
    char error[256];
} cs_library;

// Loads `library` once (thread-safe; later calls answer at once). 1 when the library and
// every symbol were found; else 0, and library->error holds dlerror's reason.
int cs_library_load(cs_library *library);
// Loads each of `count` libraries in turn; 1 when all are there, else 0 with the first
// failure's reason in why[0..size) (why may be NULL).
int cs_libraries_load(cs_library *libraries, size_t count, char *why, size_t size);

// The X-macro helpers a shim's list uses: a table field typed as the function itself,
// and the function's name.
#define CS_LIBRARY_SLOT(name) __typeof__(name) *name;
#define CS_LIBRARY_NAME(name) #name,

#endif
