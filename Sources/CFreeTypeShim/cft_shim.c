#include "cft_shim.h"

#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_GLYPH_H
#include FT_STROKER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// One FreeType library per font: a font is used by one thread at a time.
struct cft_font {
    FT_Library library;
    FT_Face face;
    FT_Stroker stroker;
};

cft_font *cft_open(const char *path, char *error, size_t error_size) {
    cft_font *font = calloc(1, sizeof *font);
    if (!font) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    FT_Error code = FT_Init_FreeType(&font->library);
    if (code == 0) code = FT_New_Face(font->library, path, 0, &font->face);
    if (code == 0) code = FT_Stroker_New(font->library, &font->stroker);
    if (code != 0) {
        const char *reason = FT_Error_String(code);
        snprintf(error, error_size, "%s (FreeType error %d)", reason ? reason : "cannot open the font", code);
        cft_close(font);
        return NULL;
    }
    return font;
}

void cft_close(cft_font *font) {
    if (!font) return;
    if (font->stroker) FT_Stroker_Done(font->stroker);
    if (font->face) FT_Done_Face(font->face);
    if (font->library) FT_Done_FreeType(font->library);
    free(font);
}

int cft_set_size(cft_font *font, int pixels) { return FT_Set_Pixel_Sizes(font->face, 0, (FT_UInt)pixels); }

void cft_metrics(const cft_font *font, int *ascender, int *descender, int *line_height) {
    const FT_Size_Metrics *m = &font->face->size->metrics;
    *ascender = (int)((m->ascender + 63) >> 6);
    *descender = (int)(m->descender >> 6);
    *line_height = (int)((m->height + 63) >> 6);
}

long cft_advance(cft_font *font, uint32_t previous, uint32_t codepoint) {
    FT_UInt glyph = FT_Get_Char_Index(font->face, codepoint);
    long advance = 0;
    if (FT_Load_Glyph(font->face, glyph, FT_LOAD_DEFAULT | FT_LOAD_NO_BITMAP) == 0)
        advance = font->face->glyph->advance.x;
    if (previous && FT_HAS_KERNING(font->face)) {
        FT_Vector kern;
        if (FT_Get_Kerning(font->face, FT_Get_Char_Index(font->face, previous), glyph, FT_KERNING_DEFAULT, &kern) == 0)
            advance += kern.x;
    }
    return advance;
}

// Blits a rendered glyph into a mask with max(), clipped.
static void blit(const FT_BitmapGlyph bitmap, int x0, int baseline, uint8_t *mask, int width, int height) {
    const FT_Bitmap *b = &bitmap->bitmap;
    for (unsigned r = 0; r < b->rows; r++) {
        int y = baseline - bitmap->top + (int)r;
        if (y < 0 || y >= height) continue;
        const uint8_t *src = b->buffer + (long)r * b->pitch;
        for (unsigned c = 0; c < b->width; c++) {
            int x = x0 + bitmap->left + (int)c;
            if (x < 0 || x >= width) continue;
            uint8_t *d = mask + (size_t)y * (size_t)width + (size_t)x;
            if (src[c] > *d) *d = src[c];
        }
    }
}

// Renders `glyph` (consumed) moved right by `subpixel` / 64 pixels, and blits it.
static FT_Error render(FT_Glyph glyph, long subpixel, int x0, int baseline, uint8_t *mask, int width, int height) {
    FT_Vector delta = {subpixel, 0};
    FT_Error code = FT_Glyph_Transform(glyph, NULL, &delta);
    if (code == 0) code = FT_Glyph_To_Bitmap(&glyph, FT_RENDER_MODE_NORMAL, NULL, 1);
    if (code == 0) blit((FT_BitmapGlyph)glyph, x0, baseline, mask, width, height);
    FT_Done_Glyph(glyph);
    return code;
}

int cft_draw(cft_font *font, uint32_t codepoint, long pen_x, int baseline, uint8_t *fill, uint8_t *outline,
             int width, int height, long radius) {
    FT_UInt index = FT_Get_Char_Index(font->face, codepoint);  // 0: the missing-glyph box
    FT_Error code = FT_Load_Glyph(font->face, index, FT_LOAD_DEFAULT | FT_LOAD_NO_BITMAP);
    if (code != 0) return code;
    FT_Glyph glyph;
    code = FT_Get_Glyph(font->face->glyph, &glyph);
    if (code != 0) return code;
    int x0 = (int)(pen_x >> 6);
    long subpixel = pen_x & 63;
    if (outline && radius > 0) {
        FT_Glyph border;
        code = FT_Glyph_Copy(glyph, &border);
        if (code == 0) {
            FT_Stroker_Set(font->stroker, radius, FT_STROKER_LINECAP_ROUND, FT_STROKER_LINEJOIN_ROUND, 0);
            code = FT_Glyph_Stroke(&border, font->stroker, 1);
            if (code == 0) code = render(border, subpixel, x0, baseline, outline, width, height);
            else FT_Done_Glyph(border);
        }
        if (code != 0) {
            FT_Done_Glyph(glyph);
            return code;
        }
    }
    return render(glyph, subpixel, x0, baseline, fill, width, height);
}
