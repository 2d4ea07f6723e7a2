// The table behind jxl_libraries.h, and cx_available.
#include "cjxl_shim.h"
#include "jxl_libraries.h"

#include <stdio.h>

#if defined(__linux__)
#define CX_TEXT(x) #x
#define CX_VERSION(major, minor) CX_TEXT(major) "." CX_TEXT(minor)
// libjxl's file name carries its major and minor version (libjxl.so.0.7): the one built against.
#define CX_SONAME(base) base ".so." CX_VERSION(JPEGXL_MAJOR_VERSION, JPEGXL_MINOR_VERSION)

struct cx_libjxl cx_libjxl;

// Two files, one table: libjxl's functions first, then libjxl_threads' (the order of the struct).
static const char *const cx_jxl_symbols[] = {CX_LIBJXL_FUNCTIONS(CS_LIBRARY_NAME) NULL};
static const char *const cx_threads_symbols[] = {CX_LIBJXL_THREADS_FUNCTIONS(CS_LIBRARY_NAME) NULL};
static const char *const cx_jxl_names[] = {CX_SONAME("libjxl"), "libjxl.so", NULL};
static const char *const cx_threads_names[] = {CX_SONAME("libjxl_threads"), "libjxl_threads.so", NULL};
enum { CX_JXL_COUNT = sizeof cx_jxl_symbols / sizeof cx_jxl_symbols[0] - 1 };

static cs_library cx_libraries[] = {
    {cx_jxl_names, cx_jxl_symbols, (void **)&cx_libjxl, 0, ""},
    {cx_threads_names, cx_threads_symbols, (void **)&cx_libjxl + CX_JXL_COUNT, 0, ""},
};

int cx_available(char *why, size_t size) {
    return cs_libraries_load(cx_libraries, sizeof cx_libraries / sizeof cx_libraries[0], why, size);
}
#else
int cx_available(char *why, size_t size) {
    (void)why;
    (void)size;
    return 1;
}
#endif
