#include "cshim_support.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cs_write_all(int fd, const void *bytes, size_t count) {
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

void cs_format(char *buffer, size_t size, const char *format, ...) {
    va_list args;
    va_start(args, format);
    cs_vformat(buffer, size, format, args);
    va_end(args);
}
