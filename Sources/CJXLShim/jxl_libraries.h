// libjxl and libjxl_threads, loaded when a JPEG XL file is first read or written
// (CShimSupport's cs_library): catctl starts sooner without them and Highway, whose start
// alone measures the timer for about 3 ms. The lists are every function this shim calls;
// a call goes through JXL(name). On Apple's systems they are linked as usual.
#pragma once
#include "cshim_support.h"

#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>
#include <jxl/version.h>

#define CX_LIBJXL_FUNCTIONS(X) \
    X(JxlColorEncodingSetToSRGB) X(JxlDecoderCloseInput) X(JxlDecoderCreate) X(JxlDecoderDestroy) \
    X(JxlDecoderExtraChannelBufferSize) X(JxlDecoderGetBasicInfo) X(JxlDecoderGetBoxType) X(JxlDecoderGetColorAsEncodedProfile) \
    X(JxlDecoderGetColorAsICCProfile) X(JxlDecoderGetExtraChannelInfo) X(JxlDecoderGetFrameHeader) X(JxlDecoderGetICCProfileSize) \
    X(JxlDecoderImageOutBufferSize) X(JxlDecoderProcessInput) X(JxlDecoderReleaseBoxBuffer) \
    X(JxlDecoderSetBoxBuffer) X(JxlDecoderSetCoalescing) X(JxlDecoderSetDecompressBoxes) X(JxlDecoderSetExtraChannelBuffer) X(JxlDecoderSetImageOutCallback) \
    X(JxlDecoderSetInput) X(JxlDecoderSetParallelRunner) X(JxlDecoderSetPreferredColorProfile) \
    X(JxlDecoderSetUnpremultiplyAlpha) X(JxlDecoderSubscribeEvents) X(JxlEncoderAddBox) \
    X(JxlEncoderAddImageFrame) X(JxlEncoderCloseBoxes) X(JxlEncoderCloseInput) X(JxlEncoderCreate) \
    X(JxlEncoderDestroy) X(JxlEncoderFrameSettingsCreate) X(JxlEncoderFrameSettingsSetOption) \
    X(JxlEncoderGetError) X(JxlEncoderGetRequiredCodestreamLevel) X(JxlEncoderInitBasicInfo) \
    X(JxlEncoderInitFrameHeader) X(JxlEncoderProcessOutput) X(JxlEncoderSetBasicInfo) \
    X(JxlEncoderSetCodestreamLevel) X(JxlEncoderSetColorEncoding) X(JxlEncoderSetFrameDistance) \
    X(JxlEncoderSetFrameHeader) X(JxlEncoderSetFrameLossless) X(JxlEncoderSetICCProfile) \
    X(JxlEncoderSetParallelRunner) X(JxlEncoderUseBoxes) X(JxlSignatureCheck)

#define CX_LIBJXL_THREADS_FUNCTIONS(X) \
    X(JxlThreadParallelRunner) X(JxlThreadParallelRunnerCreate) X(JxlThreadParallelRunnerDestroy)

#if defined(__linux__)
struct cx_libjxl { CX_LIBJXL_FUNCTIONS(CS_LIBRARY_SLOT) CX_LIBJXL_THREADS_FUNCTIONS(CS_LIBRARY_SLOT) };
extern struct cx_libjxl cx_libjxl;
#define JXL(name) (*cx_libjxl.name)
#else
#define JXL(name) name
#endif
