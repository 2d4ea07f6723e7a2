// Counts the tasks libjxl 0.7 hands a parallel runner while decoding a file to RGBA8.
#include <jxl/decode.h>
#include <jxl/parallel_runner.h>
#include <stdio.h>
#include <stdlib.h>
static unsigned long long tasks, calls;
static JxlParallelRetCode run(void *o, void *jo, JxlParallelRunInit init, JxlParallelRunFunction f, uint32_t s, uint32_t e) {
    (void)o; calls++; tasks += e - s;
    if (init(jo, 1) != 0) return -1;
    for (uint32_t i = s; i < e; i++) f(jo, i, 0);
    return 0;
}
int main(int argc, char **argv) {
    FILE *fp = fopen(argv[1], "rb"); fseek(fp, 0, SEEK_END); size_t n = ftell(fp); rewind(fp);
    uint8_t *d = malloc(n); if (fread(d, 1, n, fp) != n) return 1;
    JxlDecoder *dec = JxlDecoderCreate(NULL);
    JxlDecoderSetParallelRunner(dec, run, NULL);
    JxlDecoderSubscribeEvents(dec, JXL_DEC_BASIC_INFO | JXL_DEC_FULL_IMAGE);
    JxlDecoderSetInput(dec, d, n); JxlDecoderCloseInput(dec);
    JxlBasicInfo bi; uint8_t *buf = NULL; JxlPixelFormat f = {4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    for (;;) {
        JxlDecoderStatus s = JxlDecoderProcessInput(dec);
        if (s == JXL_DEC_BASIC_INFO) { JxlDecoderGetBasicInfo(dec, &bi); buf = malloc((size_t)bi.xsize * bi.ysize * 4); }
        else if (s == JXL_DEC_NEED_IMAGE_OUT_BUFFER) JxlDecoderSetImageOutBuffer(dec, &f, buf, (size_t)bi.xsize * bi.ysize * 4);
        else if (s == JXL_DEC_FULL_IMAGE) break;
        else { printf("status %d\n", s); break; }
    }
    printf("%s: %llu runner calls, %llu tasks\n", argv[1], calls, tasks);
    return 0;
}
