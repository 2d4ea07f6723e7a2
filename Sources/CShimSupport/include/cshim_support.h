// What every C shim needs the same way, written once.
#ifndef CSHIM_SUPPORT_H
#define CSHIM_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

// What every codec shim answers (Swift's ShimCode): one meaning for each number.
enum {
    CS_OK = 0,
    CS_ERR_CORRUPT = 1,      // the data is not the format, or is malformed
    CS_ERR_TRUNCATED = 2,    // the data ends before the image does
    CS_ERR_UNSUPPORTED = 3,  // a valid file or request this build cannot handle
    CS_ERR_NOMEM = 4,
    CS_ERR_IO = 5,           // a write to the output descriptor failed (the errno is given)
    CS_ERR_STATE = 6,        // the API was called out of order or with invalid arguments
    CS_ERR_LIMIT = 7,        // over the caller's pixel or frame limit, or a bound of the shim's own
};

// The last failure of a shim object: a code and one line of message (newlines, as libheif
// ends its messages with, become spaces; trailing blanks go).
enum { CS_MESSAGE_SIZE = 512 };
typedef struct cs_error {
    int code;
    char message[CS_MESSAGE_SIZE];
} cs_error;
// Sets error's code and message from the format; returns the code.
int cs_fail(cs_error *error, int code, const char *format, ...) __attribute__((format(printf, 3, 4)));
int cs_vfail(cs_error *error, int code, const char *format, va_list args);
// The same with the message already written into error->message.
int cs_failed(cs_error *error, int code);

// What an encoder writes besides the pixels, as pointer and length pairs (NULL and 0 when
// absent); each encoder says where it puts them and what it leaves out.
typedef struct cs_metadata {
    const uint8_t *icc;     size_t icc_length;
    const uint8_t *exif;    size_t exif_length;     // bare TIFF data ("II*\0"/"MM\0*")
    const uint8_t *xmp;     size_t xmp_length;      // the XMP packet
    const uint8_t *comment; size_t comment_length;  // a free-text comment (JPEG's COM)
    // What a decoder left out, over CS_METADATA_BUDGET: its size (0: nothing). Encoders
    // ignore these. Every decoder's info holds one of these structs (`metadata`); Swift
    // reads it in one place (ImageMetadata(shim:), ShimBridge.swift).
    uint64_t icc_dropped, exif_dropped, xmp_dropped;
} cs_metadata;

// Writes all of bytes[0..count) to fd, retrying on EINTR and short writes. Returns 0, or
// the errno of the failure (EIO when write(2) wrote nothing). Async-signal-safe: only
// write(2) and errno, so the terminal shim's signal handlers may call it. fd 2 means
// catctl's own stderr (cs_console_fd), also while a quiet scope has fd 2 elsewhere.
int cs_write_all(int fd, const void *bytes, size_t count);

// A file in memory, with no name in any folder (memfd_create; elsewhere an unlinked
// temporary file), opened read-write and close-on-exec; -1 with errno when there is none.
// What libraries chatter on fd 2 is kept in one, and an output bound for object storage
// is encoded into one before its upload.
int cs_memory_file(const char *name);

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

// Descriptor 2, catctl's and the libraries'. libjxl 0.7 (JXL_FAILURE lines, with names
// taken from the file), dav1d, libde265, aom and x265 print on fd 2 by themselves, where a
// person's terminal is: a file could set the title, clear the screen or colour text. So
// every shim call into such a library runs inside a quiet scope (CS_QUIET_SCOPE at the top
// of the function): while any scope is open, fd 2 is a memory file, and what the libraries
// wrote is kept (its last CS_CHATTER_KEPT bytes) for cs_chatter_take, never shown raw.
// catctl's own writes "to fd 2" (cs_write_all, and Swift's SystemCalls.writeAll) go to
// cs_stderr_target() instead: the original stderr, or what the live terminal holds it in
// (cs_stderr_hold), so a line another thread prints meanwhile is never caught. Scopes nest
// and overlap across threads (a count). Sanitizer reports go to the original stderr.
enum { CS_CHATTER_KEPT = 16384 };

// The original fd 2, duplicated once at the first call (fd 2 itself if it cannot be).
int cs_console_fd(void);
// Where catctl's own stderr lines go now: the held descriptor, else cs_console_fd().
// Async-signal-safe.
int cs_stderr_target(void);
// Sends catctl's stderr (and fd 2 outside quiet scopes) to `fd` until called with -1 (the
// live terminal keeps stderr aside while it owns the screen). Async-signal-safe once
// cs_console_fd() has been called.
void cs_stderr_hold(int fd);
// Opens a quiet scope; returns a token for cs_quiet_end (0 when fd 2 is left as it is).
int cs_quiet_begin(void);
void cs_quiet_end(int token);
// Copies what the libraries wrote since the last take (its last CS_CHATTER_KEPT bytes) to
// buffer[0..size), NUL-terminated, and forgets it; returns the number of bytes copied.
size_t cs_chatter_take(char *buffer, size_t size);

static inline void cs_quiet_cleanup(int *token) { cs_quiet_end(*token); }
#define CS_QUIET_SCOPE int cs_quiet_token __attribute__((cleanup(cs_quiet_cleanup), unused)) = cs_quiet_begin()

// The cores online, at least 1 and at most `max`: a codec's worker threads.
int cs_cores(int max);

// ---- ISO/IEC 14496-12 boxes (HEIF, AVIF, HEIF sequences, the JPEG XL container)
// Every size is checked against its parent before a byte of the box is read.

typedef struct cs_span {
    const uint8_t *p;
    size_t n;
} cs_span;

typedef struct cs_box {
    uint32_t type;
    cs_span body;   // the payload after the 8- or 16-byte header
} cs_box;

#define CS_FOURCC(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

// The box at *at inside `in`: 1 with *box filled and *at moved past it; 0 at the end of
// `in`; -1 when the box is malformed (a size smaller than its header or past its parent,
// a header cut short). A size of 0 runs to the end of `in`.
int cs_box_next(cs_span in, size_t *at, cs_box *box);

// The same, read as `flags` say: CS_BOX_SIZE0_IS_END, a size of 0 runs to the end (ISO
// BMFF, JPEG XL's last box; libheif 1.15 and libavif 0.11 refuse it: without the flag it
// is malformed); CS_BOX_UUID, a 'uuid' box has 16 bytes of extended type before its body.
enum { CS_BOX_SIZE0_IS_END = 1, CS_BOX_UUID = 2 };
int cs_box_read(cs_span in, size_t *at, cs_box *box, unsigned flags);
// The first box of `type` directly inside `in` after `skip` bytes of the parent's own
// fields: 1 with its payload in *out, else 0 (none, or a malformed box on the way).
int cs_box_child(cs_span in, size_t skip, uint32_t type, cs_span *out);
// A full box's payload after its version and flags: 1, or 0 when it is shorter than 4 bytes.
int cs_full_box(cs_span box, cs_span *payload, int *version, uint32_t *flags);

// Reads big-endian fields from a span without passing its end: past it, `bad` is set and
// 0 is read.
typedef struct cs_reader {
    cs_span in;
    size_t at;
    int bad;
} cs_reader;
uint64_t cs_read(cs_reader *r, size_t bytes);  // 0..8 bytes (0 reads nothing: 0)
void cs_skip(cs_reader *r, size_t bytes);
static inline size_t cs_left(const cs_reader *r) { return r->bad || r->at > r->in.n ? 0 : r->in.n - r->at; }

// The one metadata budget of every format: an ICC profile, the EXIF and the XMP of an
// image may each be at most this long (PNG text chunks share it too). Real print
// profiles are 0.5-3 MB. What is over it is left out of the output, with a note.
enum { CS_METADATA_BUDGET = 8 * 1024 * 1024 };

// CMYK through its ICC profile to sRGB with lcms2: relative colorimetric with black point
// compensation, as Photoshop converts by default; the one rendering of CMYK JPEG, TIFF and
// JPEG XL. `inverted`: 255 is no ink (Adobe's JPEGs, JPEG XL), lcms2's "reversed" flavour.
// Out: RGBA8 (alpha left as it is) when `rgba`, else RGB8. A cmsHTRANSFORM for
// cmsDoTransform and cmsDeleteTransform, or NULL when the profile is not a usable CMYK one.
void *cs_cmyk_transform(const uint8_t *icc, size_t length, int inverted, int rgba);

#endif
