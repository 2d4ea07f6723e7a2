/* Writes the two CMYK fixtures Pillow cannot make, through libjpeg itself:
 *   jpeg/cmyk-plain.jpg  4-component CMYK, no Adobe marker, samples stored as ink (255 = full ink)
 *   jpeg/ycck-adobe.jpg  YCCK with an Adobe APP14 marker, samples stored inverted (255 = no ink),
 *                        as Photoshop writes them
 * Both 40x40, quadrants cyan / magenta / yellow / white (see chelsea-cmyk.jpg).
 * Build and run from Tests/Fixtures:
 *   cc tools/make_cmyk.c -o /tmp/make_cmyk $(pkg-config --cflags --libs libjpeg) && /tmp/make_cmyk
 */
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

static void write_file(const char *path, J_COLOR_SPACE jpeg_space, int adobe, int inverted) {
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    jpeg_stdio_dest(&c, f);
    c.image_width = 40;
    c.image_height = 40;
    c.input_components = 4;
    c.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&c);
    jpeg_set_colorspace(&c, jpeg_space);
    for (int i = 0; i < c.num_components; i++) c.comp_info[i].h_samp_factor = c.comp_info[i].v_samp_factor = 1;
    c.write_Adobe_marker = adobe ? TRUE : FALSE;
    jpeg_set_quality(&c, 95, TRUE);
    jpeg_start_compress(&c, TRUE);
    unsigned char row[40 * 4];
    while (c.next_scanline < 40) {
        int y = c.next_scanline;
        for (int x = 0; x < 40; x++) {
            /* ink: cyan (255,0,0,0), magenta (0,255,0,0), yellow (0,0,255,0), white (0,0,0,0) */
            int q = (y >= 20) * 2 + (x >= 20);
            unsigned char ink[4] = {q == 0 ? 255 : 0, q == 1 ? 255 : 0, q == 2 ? 255 : 0, 0};
            for (int k = 0; k < 4; k++) row[4 * x + k] = inverted ? 255 - ink[k] : ink[k];
        }
        JSAMPROW r = row;
        jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    fclose(f);
}

int main(void) {
    write_file("jpeg/cmyk-plain.jpg", JCS_CMYK, 0, 0);
    write_file("jpeg/ycck-adobe.jpg", JCS_YCCK, 1, 1);
    return 0;
}
