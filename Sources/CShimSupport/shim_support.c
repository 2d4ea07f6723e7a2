#include "cshim_support.h"
#include <dlfcn.h>
#include <pthread.h>

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
