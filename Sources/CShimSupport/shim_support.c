#include "cshim_support.h"

#include <errno.h>
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
