// libraqm (with HarfBuzz and FriBidi under it) and fontconfig, loaded when a caption is first
// laid out (CShimSupport's cs_library): catctl starts without them, and a build of catctl
// that never draws text never touches them. The lists are every function this shim calls;
// a call goes through RAQM(name) or FC(name). On Apple's systems they are linked as usual.
#pragma once
#include "cshim_support.h"

#include <fontconfig/fontconfig.h>
#include <raqm.h>

#define CT_LIBRAQM_FUNCTIONS(X) \
    X(raqm_create) X(raqm_destroy) X(raqm_set_text) X(raqm_set_par_direction) X(raqm_set_language) \
    X(raqm_set_freetype_face_range) X(raqm_set_freetype_load_flags) X(raqm_layout) X(raqm_get_glyphs)

#define CT_FONTCONFIG_FUNCTIONS(X) \
    X(FcInitLoadConfigAndFonts) X(FcConfigDestroy) X(FcPatternCreate) X(FcPatternDestroy) X(FcPatternAddCharSet) \
    X(FcPatternAddLangSet) X(FcPatternAddInteger) X(FcPatternAddBool) X(FcCharSetCreate) X(FcCharSetAddChar) \
    X(FcCharSetDestroy) X(FcCharSetHasChar) X(FcLangSetCreate) X(FcLangSetAdd) X(FcLangSetDestroy) \
    X(FcConfigSubstitute) X(FcDefaultSubstitute) X(FcFontSort) X(FcFontSetDestroy) X(FcPatternGetString) \
    X(FcPatternGetInteger) X(FcPatternGetCharSet) X(FcFini)

#if defined(__linux__)
struct ct_libraqm { CT_LIBRAQM_FUNCTIONS(CS_LIBRARY_SLOT) };
struct ct_fontconfig { CT_FONTCONFIG_FUNCTIONS(CS_LIBRARY_SLOT) };
extern struct ct_libraqm ct_libraqm;
extern struct ct_fontconfig ct_fontconfig;
#define RAQM(name) ct_libraqm.name
#define FC(name) ct_fontconfig.name
#else
#define RAQM(name) name
#define FC(name) name
#endif
