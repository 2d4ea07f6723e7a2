// Finding J2 fixture, step 1: a still JPEG XL of a W x H canvas made of N frames: N-1 layers
// of LW x LH at (0,0) with duration 0, then a last LW x LH layer. Lossless, effort 1, all zero.
// usage: mk_jxl_layers W H N LW LH OUT
#include <jxl/encode.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    if (argc < 7) return 2;
    uint32_t w = atoi(argv[1]), h = atoi(argv[2]), n = atoi(argv[3]), lw = atoi(argv[4]), lh = atoi(argv[5]);
    JxlEncoder *enc = JxlEncoderCreate(NULL);
    JxlBasicInfo bi; JxlEncoderInitBasicInfo(&bi);
    bi.xsize = w; bi.ysize = h; bi.bits_per_sample = 8; bi.num_color_channels = 3; bi.uses_original_profile = JXL_TRUE;
    if (JxlEncoderSetBasicInfo(enc, &bi) != JXL_ENC_SUCCESS) { fprintf(stderr, "basic\n"); return 1; }
    JxlColorEncoding c; JxlColorEncodingSetToSRGB(&c, JXL_FALSE); JxlEncoderSetColorEncoding(enc, &c);
    JxlEncoderFrameSettings *fs = JxlEncoderFrameSettingsCreate(enc, NULL);
    JxlEncoderSetFrameLossless(fs, JXL_TRUE);
    JxlEncoderFrameSettingsSetOption(fs, JXL_ENC_FRAME_SETTING_EFFORT, 1);
    JxlPixelFormat f3 = {3, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    uint8_t *px = calloc((size_t)lw * lh, 3);
    for (uint32_t i = 0; i < n; i++) {
        JxlFrameHeader fh; JxlEncoderInitFrameHeader(&fh);
        fh.layer_info.have_crop = JXL_TRUE; fh.layer_info.crop_x0 = 0; fh.layer_info.crop_y0 = 0;
        fh.layer_info.xsize = lw; fh.layer_info.ysize = lh;
        if (JxlEncoderSetFrameHeader(fs, &fh) != JXL_ENC_SUCCESS) { fprintf(stderr, "fh %u\n", i); return 1; }
        if (JxlEncoderAddImageFrame(fs, &f3, px, (size_t)lw * lh * 3) != JXL_ENC_SUCCESS) { fprintf(stderr, "frame %u\n", i); return 1; }
    }
    JxlEncoderCloseInput(enc);
    size_t cap = 1 << 20, used = 0; uint8_t *out = malloc(cap);
    for (;;) {
        uint8_t *next = out + used; size_t avail = cap - used;
        JxlEncoderStatus st = JxlEncoderProcessOutput(enc, &next, &avail);
        used = next - out;
        if (st == JXL_ENC_NEED_MORE_OUTPUT) { cap *= 2; out = realloc(out, cap); continue; }
        if (st != JXL_ENC_SUCCESS) { fprintf(stderr, "encode failed\n"); return 1; }
        break;
    }
    FILE *fo = fopen(argv[6], "wb"); fwrite(out, 1, used, fo); fclose(fo);
    printf("%s: %zu bytes\n", argv[6], used);
    return 0;
}
