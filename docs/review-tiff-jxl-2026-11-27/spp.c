#include <tiffio.h>
#include <stdio.h>
int main(int c, char **v) { TIFF *t = TIFFOpen(v[1], "r"); if (!t) return 1; uint16_t spp=0, ex=0, *info; uint32_t w;
 TIFFGetField(t, TIFFTAG_SAMPLESPERPIXEL, &spp); TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w);
 TIFFGetField(t, TIFFTAG_EXTRASAMPLES, &ex, &info);
 printf("spp %u extras %u scanline %lld\n", spp, ex, (long long)TIFFScanlineSize64(t)); return 0; }
