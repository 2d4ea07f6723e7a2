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

#endif
