// Writes the two ICC profiles the metadata fixtures carry, with lcms2 (Pillow cannot make
// either):
//   wide-rgb.icc  an RGB profile with Adobe RGB (1998) primaries, D65 white, gamma 563/256
//                 and a copyright tag padded to ~80 KB, so that a JPEG must split it over
//                 two APP2 segments (64 KB each at most);
//   warm-cmyk.icc a CMYK output profile whose AToB0 table is the naive CMYK→RGB formula
//                 with a warm cast (red up, blue down), so a conversion through it is told
//                 apart from the naive formula catctl uses without a profile.
// cc -O2 make_icc.c -llcms2 -o make_icc && ./make_icc OUTDIR
#include <lcms2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int save(cmsHPROFILE p, const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!cmsSaveProfileToFile(p, path)) { fprintf(stderr, "cannot write %s\n", path); return 1; }
    return 0;
}

// CMYK (0 = no ink) to Lab through a warm-tinted naive formula.
static cmsHTRANSFORM srgb_to_lab;
static int sample(const cmsUInt16Number in[], cmsUInt16Number out[], void *cargo) {
    (void)cargo;
    double c = in[0] / 65535.0, m = in[1] / 65535.0, y = in[2] / 65535.0, k = in[3] / 65535.0;
    double rgb[3] = {(1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k)};
    rgb[0] = rgb[0] * 0.9 + 0.1;  // warm: lift red
    rgb[2] = rgb[2] * 0.85;       // and cut blue
    cmsCIELab lab;
    cmsDoTransform(srgb_to_lab, rgb, &lab, 1);
    cmsFloat2LabEncoded(out, &lab);
    return 1;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    cmsCIExyY d65 = {0.3127, 0.3290, 1.0};
    cmsCIExyYTRIPLE adobe = {{0.64, 0.33, 1.0}, {0.21, 0.71, 1.0}, {0.15, 0.06, 1.0}};
    cmsToneCurve *gamma = cmsBuildGamma(NULL, 563.0 / 256.0);
    cmsToneCurve *curves[3] = {gamma, gamma, gamma};
    cmsHPROFILE wide = cmsCreateRGBProfile(&d65, &adobe, curves);
    cmsMLU *desc = cmsMLUalloc(NULL, 1);
    cmsMLUsetASCII(desc, "en", "US", "catctl test: Adobe RGB (1998) primaries");
    cmsWriteTag(wide, cmsSigProfileDescriptionTag, desc);
    size_t big = 40000;
    char *text = malloc(big + 1);
    for (size_t i = 0; i < big; i++) text[i] = "CC0 test profile for catctl. "[i % 29];
    text[big] = 0;
    cmsMLU *copyright = cmsMLUalloc(NULL, 1);
    cmsMLUsetASCII(copyright, "en", "US", text);
    cmsWriteTag(wide, cmsSigCopyrightTag, copyright);
    int failed = save(wide, dir, "wide-rgb.icc");

    cmsHPROFILE srgb = cmsCreate_sRGBProfile(), lab = cmsCreateLab4Profile(NULL);
    srgb_to_lab = cmsCreateTransform(srgb, TYPE_RGB_DBL, lab, TYPE_Lab_DBL, INTENT_RELATIVE_COLORIMETRIC, 0);
    cmsHPROFILE cmyk = cmsCreateProfilePlaceholder(NULL);
    cmsSetProfileVersion(cmyk, 4.3);
    cmsSetDeviceClass(cmyk, cmsSigOutputClass);
    cmsSetColorSpace(cmyk, cmsSigCmykData);
    cmsSetPCS(cmyk, cmsSigLabData);
    cmsPipeline *a2b = cmsPipelineAlloc(NULL, 4, 3);
    cmsStage *clut = cmsStageAllocCLut16bit(NULL, 7, 4, 3, NULL);
    cmsStageSampleCLut16bit(clut, sample, NULL, 0);
    // lutAtoBType's shape: A curves, CLUT, B curves (identity curves here).
    cmsPipelineInsertStage(a2b, cmsAT_END, cmsStageAllocToneCurves(NULL, 4, NULL));
    cmsPipelineInsertStage(a2b, cmsAT_END, clut);
    cmsPipelineInsertStage(a2b, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, NULL));
    cmsWriteTag(cmyk, cmsSigAToB0Tag, a2b);
    cmsMLU *cdesc = cmsMLUalloc(NULL, 1);
    cmsMLUsetASCII(cdesc, "en", "US", "catctl test: warm CMYK");
    cmsWriteTag(cmyk, cmsSigProfileDescriptionTag, cdesc);
    cmsWriteTag(cmyk, cmsSigMediaWhitePointTag, cmsD50_XYZ());
    failed |= save(cmyk, dir, "warm-cmyk.icc");
    return failed;
}
