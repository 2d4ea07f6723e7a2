// Finding J1 fixture: a lossless JPEG XL whose codestream declares N extra channels
// (type "optional", 8 bits), all zero: each becomes a full-size plane in libjxl.
// usage: mk_jxl_extra W H N OUT
#include <jxl/encode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    if (argc < 5) return 2;
    uint32_t w = atoi(argv[1]), h = atoi(argv[2]), n = atoi(argv[3]);
    JxlEncoder *enc = JxlEncoderCreate(NULL);
    JxlEncoderSetCodestreamLevel(enc, 10);
    JxlBasicInfo bi; JxlEncoderInitBasicInfo(&bi);
    bi.xsize = w; bi.ysize = h; bi.bits_per_sample = 8; bi.num_color_channels = 3;
    bi.num_extra_channels = n; bi.uses_original_profile = JXL_TRUE;
    if (JxlEncoderSetBasicInfo(enc, &bi) != JXL_ENC_SUCCESS) { fprintf(stderr, "basic info\n"); return 1; }
    JxlColorEncoding c; JxlColorEncodingSetToSRGB(&c, JXL_FALSE); JxlEncoderSetColorEncoding(enc, &c);
    for (uint32_t i = 0; i < n; i++) {
        JxlExtraChannelInfo ei; JxlEncoderInitExtraChannelInfo(JXL_CHANNEL_OPTIONAL, &ei);
        ei.bits_per_sample = 8;
        if (JxlEncoderSetExtraChannelInfo(enc, i, &ei) != JXL_ENC_SUCCESS) { fprintf(stderr, "ec info %u\n", i); return 1; }
    }
    JxlEncoderFrameSettings *fs = JxlEncoderFrameSettingsCreate(enc, NULL);
    JxlEncoderSetFrameLossless(fs, JXL_TRUE);
    JxlEncoderFrameSettingsSetOption(fs, JXL_ENC_FRAME_SETTING_EFFORT, 1);
    JxlPixelFormat f3 = {3, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0}, f1 = {1, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    uint8_t *px = calloc((size_t)w * h, 3), *plane = calloc((size_t)w * h, 1);
    if (JxlEncoderAddImageFrame(fs, &f3, px, (size_t)w * h * 3) != JXL_ENC_SUCCESS) { fprintf(stderr, "frame\n"); return 1; }
    for (uint32_t i = 0; i < n; i++)
        if (JxlEncoderSetExtraChannelBuffer(fs, &f1, plane, (size_t)w * h, i) != JXL_ENC_SUCCESS) { fprintf(stderr, "ec buf %u\n", i); return 1; }
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
    FILE *fo = fopen(argv[4], "wb"); fwrite(out, 1, used, fo); fclose(fo);
    printf("%s: %zu bytes\n", argv[4], used);
    return 0;
}
