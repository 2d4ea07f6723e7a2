// The table behind heif_libraries.h, and ch_available.
#include "cheif_shim.h"
#include "heif_libraries.h"

#include <stdio.h>

#if defined(__linux__)
struct ch_libheif ch_libheif;
struct ch_libavif ch_libavif;
struct ch_libde265 ch_libde265;
struct ch_libdav1d ch_libdav1d;

static const char *const ch_libheif_symbols[] = {CH_LIBHEIF_FUNCTIONS(CS_LIBRARY_NAME) NULL};
static const char *const ch_libavif_symbols[] = {CH_LIBAVIF_FUNCTIONS(CS_LIBRARY_NAME) NULL};
static const char *const ch_libde265_symbols[] = {CH_LIBDE265_FUNCTIONS(CS_LIBRARY_NAME) NULL};
static const char *const ch_libdav1d_symbols[] = {CH_LIBDAV1D_FUNCTIONS(CS_LIBRARY_NAME) NULL};

// The file each was built against first (its ABI: libavif's structs are used directly),
// then the development link, which names the same version on the machine that built it.
static const char *const ch_libheif_names[] = {"libheif.so.1", "libheif.so", NULL};
#if AVIF_VERSION_MAJOR >= 1
#define CH_AVIF_SONAME "libavif.so.16"
#elif AVIF_VERSION_MINOR >= 11
#define CH_AVIF_SONAME "libavif.so.15"
#elif AVIF_VERSION_MINOR >= 10
#define CH_AVIF_SONAME "libavif.so.14"
#else
#define CH_AVIF_SONAME "libavif.so.13"
#endif
static const char *const ch_libavif_names[] = {CH_AVIF_SONAME, "libavif.so", NULL};
static const char *const ch_libde265_names[] = {"libde265.so.0", "libde265.so", NULL};
#if DAV1D_API_VERSION_MAJOR == 6
static const char *const ch_libdav1d_names[] = {"libdav1d.so.6", "libdav1d.so", NULL};
#else
static const char *const ch_libdav1d_names[] = {"libdav1d.so.7", "libdav1d.so", NULL};
#endif

static cs_library ch_libraries[] = {
    {ch_libheif_names, ch_libheif_symbols, (void **)&ch_libheif, 0, ""},
    {ch_libavif_names, ch_libavif_symbols, (void **)&ch_libavif, 0, ""},
    {ch_libde265_names, ch_libde265_symbols, (void **)&ch_libde265, 0, ""},
    {ch_libdav1d_names, ch_libdav1d_symbols, (void **)&ch_libdav1d, 0, ""},
};

int ch_available(char *why, size_t size) {
    return cs_libraries_load(ch_libraries, sizeof ch_libraries / sizeof ch_libraries[0], why, size);
}
#else
int ch_available(char *why, size_t size) {
    (void)why;
    (void)size;
    return 1;
}
#endif
