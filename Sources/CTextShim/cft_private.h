// What the text layout shares with the font shim: a font's FreeType face, and the scale of a
// bitmap font's strike to the size asked (16.16; 65536 for an outline font).
#pragma once
#include "cft_shim.h"

#include <ft2build.h>
#include FT_FREETYPE_H

FT_Face cft_face(cft_font *font);
long cft_bitmap_scale(const cft_font *font);
