#include "cft_private.h"

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
    long scale;  // a bitmap font's strike to the size asked, 16.16
    int pixels;  // the size asked
};

FT_Face cft_face(cft_font *font) { return font->face; }
long cft_bitmap_scale(const cft_font *font) { return font->scale; }

cft_font *cft_open(const char *path, char *error, size_t error_size) { return cft_open_face(path, 0, error, error_size); }

cft_font *cft_open_face(const char *path, long index, char *error, size_t error_size) {
    cft_font *font = calloc(1, sizeof *font);
    if (!font) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    FT_Error code = FT_Init_FreeType(&font->library);
    font->scale = 65536;
    if (code == 0) code = FT_New_Face(font->library, path, index, &font->face);
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

int cft_has_char(cft_font *font, uint32_t codepoint) { return FT_Get_Char_Index(font->face, codepoint) != 0; }

int cft_is_colour(cft_font *font) { return FT_HAS_COLOR(font->face) && !FT_IS_SCALABLE(font->face); }

int cft_set_size(cft_font *font, int pixels) {
    font->pixels = pixels;
    font->scale = 65536;
    if (FT_IS_SCALABLE(font->face) || font->face->num_fixed_sizes <= 0)
        return FT_Set_Pixel_Sizes(font->face, 0, (FT_UInt)pixels);
    // A bitmap font: the strike nearest the size from above (scaled down looks best).
    int best = 0;
    for (int i = 1; i < font->face->num_fixed_sizes; i++) {
        FT_Pos have = font->face->available_sizes[best].y_ppem, want = (FT_Pos)pixels << 6;
        FT_Pos size = font->face->available_sizes[i].y_ppem;
        if ((have < want && size > have) || (size >= want && size < have)) best = i;
    }
    FT_Error code = FT_Select_Size(font->face, best);
    FT_Pos ppem = font->face->available_sizes[best].y_ppem;
    if (code == 0 && ppem > 0) font->scale = (long)(((int64_t)pixels << 22) / ppem);
    return code;
}

void cft_metrics(const cft_font *font, int *ascender, int *descender, int *line_height) {
    const FT_Size_Metrics *m = &font->face->size->metrics;
    long s = font->scale;
    *ascender = (int)(((m->ascender * s >> 16) + 63) >> 6);
    *descender = (int)((m->descender * s >> 16) >> 6);
    *line_height = (int)(((m->height * s >> 16) + 63) >> 6);
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

// A colour bitmap (BGRA, premultiplied) scaled by `scale` (16.16) with its top-left at
// (x0, y0), drawn "over" the RGBA layer; its alpha, dilated by a disc of `radius` pixels, goes
// into `outline` so that the emoji has the text's border. The disc is stamped from the
// shape's edge pixels only (the inside is covered by the shape itself), so the cost is the
// glyph's area plus its perimeter times the disc, not the area times the disc.
// The RGBA layer holds only the columns [colour_x, colour_x + colour_width) of the masks.
static int blit_colour(const FT_Bitmap *b, long scale, int x0, int y0, uint8_t *colour, int colour_x,
                       int colour_width, uint8_t *outline, int width, int height, int radius) {
    int w = (int)(((long)b->width * scale + 32768) >> 16), h = (int)(((long)b->rows * scale + 32768) >> 16);
    if (w <= 0 || h <= 0) return 0;
    uint8_t *alpha = calloc((size_t)w * (size_t)h, 1);
    if (!alpha) return FT_Err_Out_Of_Memory;
    for (int y = 0; y < h; y++) {
        unsigned sy = (unsigned)(((long)y << 16) / scale);
        if (sy >= b->rows) sy = b->rows - 1;
        const uint8_t *row = b->buffer + (long)sy * b->pitch;
        for (int x = 0; x < w; x++) {
            unsigned sx = (unsigned)(((long)x << 16) / scale);
            if (sx >= b->width) sx = b->width - 1;
            const uint8_t *p = row + 4 * sx;  // B, G, R, A
            uint8_t a = p[3];
            alpha[(size_t)y * (size_t)w + (size_t)x] = a;
            int tx = x0 + x, ty = y0 + y;
            int cx = tx - colour_x;
            if (a == 0 || cx < 0 || cx >= colour_width || ty < 0 || ty >= height) continue;
            uint8_t *d = colour + 4 * ((size_t)ty * (size_t)colour_width + (size_t)cx);
            d[0] = (uint8_t)(p[2] + d[0] * (255 - a) / 255);
            d[1] = (uint8_t)(p[1] + d[1] * (255 - a) / 255);
            d[2] = (uint8_t)(p[0] + d[2] * (255 - a) / 255);
            d[3] = (uint8_t)(a + d[3] * (255 - a) / 255);
        }
    }
    // The disc's half-width on each row from its centre.
    int span[256];
    if (radius > 255) radius = 255;
    for (int dy = 0; dy <= radius; dy++) {
        int half = 0;
        while ((half + 1) * (half + 1) + dy * dy <= radius * radius) half++;
        span[dy] = half;
    }
    for (int y = 0; outline && y < h; y++) {
        for (int x = 0; x < w; x++) {
            uint8_t a = alpha[(size_t)y * (size_t)w + (size_t)x];
            if (a == 0) continue;
            int tx = x0 + x, ty = y0 + y;
            if (tx >= 0 && tx < width && ty >= 0 && ty < height) {
                uint8_t *o = outline + (size_t)ty * (size_t)width + (size_t)tx;
                if (a > *o) *o = a;
            }
            // The silhouette's edge: next to a transparent pixel or the bitmap's border.
            int edge = x == 0 || y == 0 || x == w - 1 || y == h - 1 || alpha[(size_t)y * w + x - 1] == 0 ||
                       alpha[(size_t)y * w + x + 1] == 0 || alpha[(size_t)(y - 1) * w + x] == 0 ||
                       alpha[(size_t)(y + 1) * w + x] == 0;
            if (!edge) continue;
            for (int dy = -radius; dy <= radius; dy++) {
                int oy = ty + dy;
                if (oy < 0 || oy >= height) continue;
                int half = span[dy < 0 ? -dy : dy];
                int from = tx - half < 0 ? 0 : tx - half, to = tx + half >= width ? width - 1 : tx + half;
                uint8_t *o = outline + (size_t)oy * (size_t)width;
                for (int ox = from; ox <= to; ox++)
                    if (a > o[ox]) o[ox] = a;
            }
        }
    }
    free(alpha);
    return 0;
}

int cft_draw_glyph(cft_font *font, uint32_t index, long pen_x, long pen_y, uint8_t *fill, uint8_t *outline,
                   uint8_t *colour, int colour_x, int colour_width, int width, int height, long radius) {
    if (cft_is_colour(font)) {
        FT_Error code = FT_Load_Glyph(font->face, index, FT_LOAD_COLOR);
        if (code != 0) return code;
        FT_GlyphSlot slot = font->face->glyph;
        if (slot->format != FT_GLYPH_FORMAT_BITMAP) code = FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL);
        if (code != 0) return code;
        if (slot->bitmap.pixel_mode != FT_PIXEL_MODE_BGRA || !colour) return 0;
        long s = font->scale;
        int x0 = (int)((pen_x + ((long)slot->bitmap_left * s >> 10)) >> 6);
        int y0 = (int)((pen_y - ((long)slot->bitmap_top * s >> 10)) >> 6);
        return blit_colour(&slot->bitmap, s, x0, y0, colour, colour_x, colour_width, outline, width, height,
                           (int)(radius >> 6));
    }
    FT_Error code = FT_Load_Glyph(font->face, index, FT_LOAD_DEFAULT | FT_LOAD_NO_BITMAP);
    if (code != 0) return code;
    FT_Glyph glyph;
    code = FT_Get_Glyph(font->face->glyph, &glyph);
    if (code != 0) return code;
    int x0 = (int)(pen_x >> 6), baseline = (int)(pen_y >> 6);
    long subpixel = pen_x & 63;
    FT_Vector shift = {0, -(pen_y & 63)};
    FT_Glyph_Transform(glyph, NULL, &shift);
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
