// Caption text laid out as the field does it: libraqm itemises the text by script and by
// direction (FriBidi's bidirectional algorithm) and shapes each run with HarfBuzz, over the
// FreeType faces the caller chose for each character; fontconfig finds those faces for the
// characters the bundled font lacks (by script and language, as Pango and Pillow do).
#include "cft_private.h"
#include "text_libraries.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#if defined(__linux__)
struct ct_libraqm ct_libraqm;
struct ct_fontconfig ct_fontconfig;
static const char *const ct_libraqm_symbols[] = {CT_LIBRAQM_FUNCTIONS(CS_LIBRARY_NAME) NULL};
static const char *const ct_fontconfig_symbols[] = {CT_FONTCONFIG_FUNCTIONS(CS_LIBRARY_NAME) NULL};
static const char *const ct_libraqm_names[] = {"libraqm.so.0", "libraqm.so", NULL};
static const char *const ct_fontconfig_names[] = {"libfontconfig.so.1", "libfontconfig.so", NULL};
static cs_library ct_libraries[] = {
    {ct_libraqm_names, ct_libraqm_symbols, (void **)&ct_libraqm, 0, ""},
    {ct_fontconfig_names, ct_fontconfig_symbols, (void **)&ct_fontconfig, 0, ""},
};

int ctl_available(char *why, size_t size) {
    return cs_libraries_load(ct_libraries, sizeof ct_libraries / sizeof ct_libraries[0], why, size);
}
#else
int ctl_available(char *why, size_t size) {
    (void)why;
    (void)size;
    return 1;
}
#endif

long ctl_shape(const uint32_t *text, size_t count, cft_font *const *fonts, const int32_t *font_of, size_t font_count,
               const char *language, int direction, ctl_glyph *out, size_t capacity) {
    if (count == 0) return 0;
    raqm_t *rq = RAQM(raqm_create)();
    if (!rq) return -1;
    long result = -1;
    raqm_direction_t dir = direction == 1 ? RAQM_DIRECTION_LTR : direction == 2 ? RAQM_DIRECTION_RTL
                                                                                : RAQM_DIRECTION_DEFAULT;
    if (!RAQM(raqm_set_text)(rq, text, count) || !RAQM(raqm_set_par_direction)(rq, dir)) goto done;
    if (language && *language && !RAQM(raqm_set_language)(rq, language, 0, count)) goto done;
    // Each run of characters with one font gets that font.
    for (size_t start = 0; start < count;) {
        size_t end = start + 1;
        while (end < count && font_of[end] == font_of[start]) end++;
        int32_t f = font_of[start];
        if (f < 0 || (size_t)f >= font_count) goto done;
        if (!RAQM(raqm_set_freetype_face_range)(rq, cft_face(fonts[f]), start, end - start)) goto done;
        start = end;
    }
    if (!RAQM(raqm_set_freetype_load_flags)(rq, FT_LOAD_DEFAULT | FT_LOAD_NO_HINTING)) goto done;
    if (!RAQM(raqm_layout)(rq)) goto done;
    size_t n = 0;
    raqm_glyph_t *glyphs = RAQM(raqm_get_glyphs)(rq, &n);
    if (!glyphs) goto done;
    if (n > capacity) {
        result = -(long)n - 1;  // the caller makes room and asks again
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        int32_t f = -1;
        for (size_t k = 0; k < font_count && f < 0; k++)
            if (cft_face(fonts[k]) == glyphs[i].ftface) f = (int32_t)k;
        if (f < 0) goto done;
        // A bitmap font (colour emoji) is shaped at its strike's size: scaled to the size asked.
        long scale = cft_bitmap_scale(fonts[f]);
        out[i] = (ctl_glyph){
            .glyph = glyphs[i].index,
            .font = f,
            .x_advance = (int32_t)((long)glyphs[i].x_advance * scale >> 16),
            .x_offset = (int32_t)((long)glyphs[i].x_offset * scale >> 16),
            .y_offset = (int32_t)((long)glyphs[i].y_offset * scale >> 16),
            .cluster = glyphs[i].cluster,
        };
    }
    result = (long)n;
done:
    RAQM(raqm_destroy)(rq);
    return result;
}

// Fontconfig's fonts for a language, best first, each adding characters the ones before it
// lack (FcFontSort, trimmed): asked once per language and weight in a run, then each
// character is looked up in their character sets, so finding fonts for a thousand different
// characters costs a thousand look-ups, not a thousand font searches.
typedef struct {
    char language[16];
    int bold;
    FcFontSet *fonts;
} ct_sorted;

static pthread_mutex_t ct_lock = PTHREAD_MUTEX_INITIALIZER;
static FcConfig *ct_config;
static ct_sorted ct_sorts[8];
static size_t ct_sort_count;

// At exit, what fontconfig gave back and its own caches (FcFini): nothing it allocated is
// left for a leak checker, however the process ends normally.
static int closing(void);
static void release(void) {
    CS_QUIET_SCOPE;  // fontconfig prints on fd 2 by itself: see cshim_support.h
    pthread_mutex_lock(&ct_lock);
    for (size_t i = 0; i < ct_sort_count; i++) FC(FcFontSetDestroy)(ct_sorts[i].fonts);
    ct_sort_count = 0;
    // A worker left inside fontconfig (past the wait) still uses its configuration.
    if (closing()) {
        if (ct_config) FC(FcConfigDestroy)(ct_config);
        FC(FcFini)();
    }
    ct_config = NULL;
    pthread_mutex_unlock(&ct_lock);
}

// FONTCONFIG_FILE naming something that is there but is no regular file of at most 16 MiB (a
// FIFO, /dev/zero): fontconfig would read it for ever, on the thread that handles Ctrl-C, so
// no fallback font is looked for. A name that is not there is fontconfig's to resolve (in its
// own folder) or to report.
static int config_file_refused(void) {
    const char *file = getenv("FONTCONFIG_FILE");
    struct stat st;
    if (!file || !*file || stat(file, &st) != 0) return 0;
    return !S_ISREG(st.st_mode) || st.st_size > 16 * 1024 * 1024;
}

// fontconfig works on a thread of its own, its worker, and each answer is waited for at most
// CT_CONFIG_WAIT seconds: first the configuration, then each font sort. A regular config
// file may <include> a FIFO, a device or a file on a hung mount, which fontconfig would open
// and read for ever (fontconfig has no time limit and no hook to refuse a file); its rules
// may make a substitution take minutes (20,000 tests against 300,000 family names). Past a
// wait no fallback font is looked for again, and the worker, left behind, gives back what it
// holds if it ever ends. Warm, fontconfig loads in some 30 ms and sorts in a few; a font
// folder with no cache is scanned in a second or two.
enum { CT_CONFIG_WAIT = 5 };
// CT_LOAD_CLOSED: released at exit (the worker ends if it wakes).
enum { CT_LOAD_NONE, CT_LOAD_RUNNING, CT_LOAD_DONE, CT_LOAD_ABANDONED, CT_LOAD_CLOSED };
enum { CT_JOB_IDLE, CT_JOB_ASKED, CT_JOB_ANSWERED };
static pthread_mutex_t ct_load_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ct_load_done = PTHREAD_COND_INITIALIZER;  // the configuration or a sort is in
static pthread_cond_t ct_job_posted = PTHREAD_COND_INITIALIZER;
static int ct_load_state = CT_LOAD_NONE;
static FcConfig *ct_loaded;
static struct {
    int state;
    char language[16];
    int bold;
    FcFontSet *fonts;
} ct_job;

// Fontconfig's fonts for `language` and weight, best first (FcFontSort, trimmed).
static FcFontSet *sort_fonts(FcConfig *config, const char *language, int bold) {
    CS_QUIET_SCOPE;
    FcPattern *pattern = FC(FcPatternCreate)();
    if (!pattern) return NULL;
    if (*language) {
        FcLangSet *langs = FC(FcLangSetCreate)();
        if (langs) {
            FC(FcLangSetAdd)(langs, (const FcChar8 *)language);
            FC(FcPatternAddLangSet)(pattern, FC_LANG, langs);
            FC(FcLangSetDestroy)(langs);
        }
    }
    FC(FcPatternAddInteger)(pattern, FC_WEIGHT, bold ? FC_WEIGHT_BOLD : FC_WEIGHT_REGULAR);
    FC(FcConfigSubstitute)(config, pattern, FcMatchPattern);
    FC(FcDefaultSubstitute)(pattern);
    FcResult status;
    FcFontSet *fonts = FC(FcFontSort)(config, pattern, FcTrue, NULL, &status);
    FC(FcPatternDestroy)(pattern);
    return fonts;
}

static void *fontconfig_worker(void *unused) {
    (void)unused;
    FcConfig *config;
    {
        CS_QUIET_SCOPE;
        config = FC(FcInitLoadConfigAndFonts)();
    }
    pthread_mutex_lock(&ct_load_lock);
    if (ct_load_state != CT_LOAD_RUNNING) {  // abandoned
        pthread_mutex_unlock(&ct_load_lock);
        if (config) FC(FcConfigDestroy)(config);
        return NULL;
    }
    ct_loaded = config;
    ct_load_state = CT_LOAD_DONE;
    pthread_cond_broadcast(&ct_load_done);
    while (config) {
        while (ct_job.state != CT_JOB_ASKED && ct_load_state == CT_LOAD_DONE)
            pthread_cond_wait(&ct_job_posted, &ct_load_lock);
        if (ct_load_state != CT_LOAD_DONE) break;  // abandoned or closed: the config is not ours
        char language[sizeof ct_job.language];
        memcpy(language, ct_job.language, sizeof language);
        int bold = ct_job.bold;
        pthread_mutex_unlock(&ct_load_lock);
        FcFontSet *fonts = sort_fonts(config, language, bold);
        pthread_mutex_lock(&ct_load_lock);
        if (ct_load_state != CT_LOAD_DONE) {  // waited for no more
            if (fonts) FC(FcFontSetDestroy)(fonts);
            break;
        }
        ct_job.fonts = fonts;
        ct_job.state = CT_JOB_ANSWERED;
        pthread_cond_broadcast(&ct_load_done);
    }
    pthread_mutex_unlock(&ct_load_lock);
    return NULL;
}

// The worker's stack: fontconfig (through expat) takes some 20 KB a level of nested
// <include>: 8 MiB overflowed at about 400 levels (1000 and 2000 load on 64 MiB, 5000
// overflow). It evaluates an <edit>'s values recursively, some 64 bytes a value: 8 MiB
// overflowed at about 130,000 (a 2.4 MB config), and FONTCONFIG_FILE's 16 MiB hold at most
// some 990,000. Address space, touched only as deep as it goes.
enum { CT_LOADER_STACK = 128 << 20 };

// The wait's clock: monotonic where it can be (a step of the wall clock does not stretch it).
static pthread_once_t ct_clock_once = PTHREAD_ONCE_INIT;
static clockid_t ct_clock = CLOCK_REALTIME;
static void choose_clock(void) {
#if defined(__linux__)
    pthread_condattr_t attributes;
    if (pthread_condattr_init(&attributes) != 0) return;
    if (pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC) == 0 &&
        pthread_cond_destroy(&ct_load_done) == 0 && pthread_cond_init(&ct_load_done, &attributes) == 0)
        ct_clock = CLOCK_MONOTONIC;
    pthread_condattr_destroy(&attributes);
#endif
}

// The configuration, loaded once (NULL when it could not be, or not in time).
static FcConfig *config_in_time(void) {
    pthread_once(&ct_clock_once, choose_clock);
    pthread_mutex_lock(&ct_load_lock);
    if (ct_load_state == CT_LOAD_NONE) {
        pthread_attr_t attributes;
        pthread_t thread;
        ct_load_state = CT_LOAD_ABANDONED;
        if (pthread_attr_init(&attributes) == 0) {
            if (pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED) == 0 &&
                pthread_attr_setstacksize(&attributes, CT_LOADER_STACK) == 0 &&
                pthread_create(&thread, &attributes, fontconfig_worker, NULL) == 0)
                ct_load_state = CT_LOAD_RUNNING;
            pthread_attr_destroy(&attributes);
        }
    }
    struct timespec until;
    clock_gettime(ct_clock, &until);
    until.tv_sec += CT_CONFIG_WAIT;
    while (ct_load_state == CT_LOAD_RUNNING)
        if (pthread_cond_timedwait(&ct_load_done, &ct_load_lock, &until) == ETIMEDOUT &&
            ct_load_state == CT_LOAD_RUNNING)
            ct_load_state = CT_LOAD_ABANDONED;
    FcConfig *config = ct_load_state == CT_LOAD_DONE ? ct_loaded : NULL;
    pthread_mutex_unlock(&ct_load_lock);
    return config;
}

// The worker's sort for `language` and weight, waited for at most CT_CONFIG_WAIT seconds
// (then no sort is asked for again); NULL when there is none.
static FcFontSet *sort_in_time(const char *language, int bold) {
    pthread_mutex_lock(&ct_load_lock);
    FcFontSet *fonts = NULL;
    if (ct_load_state == CT_LOAD_DONE) {
        snprintf(ct_job.language, sizeof ct_job.language, "%s", language);
        ct_job.bold = bold;
        ct_job.state = CT_JOB_ASKED;
        pthread_cond_signal(&ct_job_posted);
        struct timespec until;
        clock_gettime(ct_clock, &until);
        until.tv_sec += CT_CONFIG_WAIT;
        while (ct_job.state == CT_JOB_ASKED)
            if (pthread_cond_timedwait(&ct_load_done, &ct_load_lock, &until) == ETIMEDOUT &&
                ct_job.state == CT_JOB_ASKED) {
                ct_load_state = CT_LOAD_ABANDONED;
                break;
            }
        if (ct_job.state == CT_JOB_ANSWERED) fonts = ct_job.fonts;
        ct_job.state = CT_JOB_IDLE;
        ct_job.fonts = NULL;
    }
    pthread_mutex_unlock(&ct_load_lock);
    return fonts;
}

// At exit: whether fontconfig may be released (no worker left inside it); the worker ends
// if it wakes.
static int closing(void) {
    pthread_mutex_lock(&ct_load_lock);
    int idle = ct_load_state == CT_LOAD_DONE;
    if (idle) {
        ct_load_state = CT_LOAD_CLOSED;
        pthread_cond_signal(&ct_job_posted);
    }
    pthread_mutex_unlock(&ct_load_lock);
    return idle;
}

int ctl_fonts_wait(void) { return CT_CONFIG_WAIT; }

int ctl_fonts_unanswered(void) {
    if (config_file_refused()) return 2;
    pthread_mutex_lock(&ct_load_lock);
    int unanswered = ct_load_state == CT_LOAD_ABANDONED;
    pthread_mutex_unlock(&ct_load_lock);
    return unanswered;
}

static FcFontSet *sorted(const char *language, int bold) {
    for (size_t i = 0; i < ct_sort_count; i++)
        if (ct_sorts[i].bold == bold && strcmp(ct_sorts[i].language, language) == 0) return ct_sorts[i].fonts;
    if (ct_sort_count == sizeof ct_sorts / sizeof ct_sorts[0]) return NULL;
    if (!ct_config && !config_file_refused()) {
        ct_config = config_in_time();
        if (ct_config) atexit(release);
    }
    if (!ct_config) return NULL;
    FcFontSet *fonts = sort_in_time(language, bold);
    if (!fonts) return NULL;
    ct_sorted *entry = &ct_sorts[ct_sort_count++];
    snprintf(entry->language, sizeof entry->language, "%s", language);
    entry->bold = bold;
    entry->fonts = fonts;
    return fonts;
}

int ctl_find_font(const char *language, int bold, const uint32_t *scalars, size_t count, char *path, size_t path_size,
                  int *index) {
    // fontconfig prints on fd 2 by itself ("Fontconfig error: ..." with a file's name and
    // a config file's text in it): see cshim_support.h.
    CS_QUIET_SCOPE;
    if (!language || strlen(language) >= sizeof ct_sorts[0].language) language = "";
    pthread_mutex_lock(&ct_lock);
    int found = 0;
    FcFontSet *fonts = sorted(language, bold);
    for (int i = 0; fonts && i < fonts->nfont && !found; i++) {
        FcPattern *font = fonts->fonts[i];
        FcCharSet *chars = NULL;
        FcChar8 *file = NULL;
        int face = 0;
        if (FC(FcPatternGetCharSet)(font, FC_CHARSET, 0, &chars) != FcResultMatch) continue;
        if (FC(FcPatternGetString)(font, FC_FILE, 0, &file) != FcResultMatch) continue;
        if (FC(FcPatternGetInteger)(font, FC_INDEX, 0, &face) != FcResultMatch) face = 0;
        int all = 1;
        for (size_t k = 0; k < count && all; k++) all = FC(FcCharSetHasChar)(chars, scalars[k]);
        if (!all || strlen((const char *)file) >= path_size) continue;
        memcpy(path, file, strlen((const char *)file) + 1);
        *index = face;
        found = 1;
    }
    pthread_mutex_unlock(&ct_lock);
    return found;
}

// ---- UAX #14 line breaking: ICU's line break iterator.
// The field's implementation (Pango, Chromium, LibreOffice and Qt break lines with it);
// libunibreak, the other, is 1.1 (2012) in Debian 12, before emoji and the newer rules.
// ICU renames every function by its major version (ubrk_open_72), so it is loaded by hand:
// the -dev package's libicuuc.so, its suffix found by trying, else the newest libicuuc.so.N
// there is (N from 90 down to 50); Apple's libicucore has the plain names. Only these five
// functions are called, with the C API's stable types (declared here: no ICU headers are
// needed to build).
typedef struct ct_break_iterator ct_break_iterator;
enum { CT_UBRK_LINE = 2, CT_UBRK_DONE = -1, CT_UBRK_LINE_HARD = 100, CT_UBRK_LINE_HARD_LIMIT = 200 };
static struct {
    ct_break_iterator *(*open)(int type, const char *locale, const uint16_t *text, int32_t length, int *status);
    int32_t (*first)(ct_break_iterator *);
    int32_t (*next)(ct_break_iterator *);
    int32_t (*rule_status)(ct_break_iterator *);
    void (*close)(ct_break_iterator *);
} ct_icu;
static int ct_icu_loaded;
static pthread_once_t ct_icu_once = PTHREAD_ONCE_INIT;

static int icu_bind(void *library, const char *suffix) {
    char name[64];
#define CT_ICU_BIND(slot, base)                                            \
    snprintf(name, sizeof name, "%s%s", base, suffix);                     \
    *(void **)&ct_icu.slot = dlsym(library, name);                         \
    if (!ct_icu.slot) return 0;
    CT_ICU_BIND(open, "ubrk_open")
    CT_ICU_BIND(first, "ubrk_first")
    CT_ICU_BIND(next, "ubrk_next")
    CT_ICU_BIND(rule_status, "ubrk_getRuleStatus")
    CT_ICU_BIND(close, "ubrk_close")
#undef CT_ICU_BIND
    return 1;
}

// A library's functions by its plain names, or by those of version `version`, or (0: not
// known) of any version from 99 down to 50.
static int icu_bind_any(void *library, int version) {
    char suffix[8];
    if (icu_bind(library, "")) return 1;
    for (int v = version ? version : 99; v >= (version ? version : 50); v--) {
        snprintf(suffix, sizeof suffix, "_%d", v);
        if (icu_bind(library, suffix)) return 1;
    }
    return 0;
}

static void icu_load(void) {
#if defined(__APPLE__)
    void *library = dlopen("/usr/lib/libicucore.dylib", RTLD_NOW | RTLD_LOCAL);
    if (library && icu_bind_any(library, 0)) ct_icu_loaded = 1;
#else
    void *library = dlopen("libicuuc.so", RTLD_NOW | RTLD_LOCAL);
    if (library && icu_bind_any(library, 0)) ct_icu_loaded = 1;
    else if (library) dlclose(library);
    char name[32];
    for (int version = 90; version >= 50 && !ct_icu_loaded; version--) {
        snprintf(name, sizeof name, "libicuuc.so.%d", version);
        library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (!library) continue;
        if (icu_bind_any(library, version)) ct_icu_loaded = 1;
        else dlclose(library);
    }
#endif
}

int ctl_line_breaks(const uint32_t *scalars, size_t count, const char *locale, uint8_t *kinds) {
    pthread_once(&ct_icu_once, icu_load);
    if (!ct_icu_loaded) return 0;
    if (count == 0) return 1;
    if (count > (size_t)1 << 24) return -1;
    // UTF-16 for ICU, and the scalar each code unit belongs to.
    uint16_t *text = malloc(2 * count * sizeof *text);
    uint32_t *owner = malloc((2 * count + 1) * sizeof *owner);
    int result = -1;
    if (!text || !owner) goto done;
    size_t length = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t c = scalars[i];
        if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) goto done;
        if (c >= 0x10000) {
            owner[length] = (uint32_t)i;
            text[length++] = (uint16_t)(0xD800 + ((c - 0x10000) >> 10));
            owner[length] = (uint32_t)i;
            text[length++] = (uint16_t)(0xDC00 + ((c - 0x10000) & 0x3FF));
        } else {
            owner[length] = (uint32_t)i;
            text[length++] = (uint16_t)c;
        }
    }
    owner[length] = (uint32_t)count;
    int status = 0;
    ct_break_iterator *breaks = ct_icu.open(CT_UBRK_LINE, locale ? locale : "", text, (int32_t)length, &status);
    if (!breaks || status > 0) {
        if (breaks) ct_icu.close(breaks);
        goto done;
    }
    memset(kinds, 0, count);
    for (int32_t at = ct_icu.first(breaks); at != CT_UBRK_DONE; at = ct_icu.next(breaks)) {
        if (at <= 0 || (size_t)at >= length) continue;
        int32_t rule = ct_icu.rule_status(breaks);
        kinds[owner[at]] = rule >= CT_UBRK_LINE_HARD && rule < CT_UBRK_LINE_HARD_LIMIT ? 2 : 1;
    }
    ct_icu.close(breaks);
    result = 1;
done:
    free(text);
    free(owner);
    return result;
}
