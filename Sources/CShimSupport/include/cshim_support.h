// What every C shim needs the same way, written once.
#ifndef CSHIM_SUPPORT_H
#define CSHIM_SUPPORT_H

#include <stddef.h>

// Writes all of bytes[0..count) to fd, retrying on EINTR and short writes. Returns 0, or
// the errno of the failure (EIO when write(2) wrote nothing). Async-signal-safe: only
// write(2) and errno, so the terminal shim's signal handlers may call it.
int cs_write_all(int fd, const void *bytes, size_t count);

#endif
