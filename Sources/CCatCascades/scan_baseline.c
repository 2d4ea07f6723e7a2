// The baseline build: SSE2 on x86-64, NEON on arm64, whatever the compiler targets elsewhere.
#if defined(__aarch64__) || defined(__SSE4_1__)
#define CK_HAS_FLOOR 1
#else
#define CK_HAS_FLOOR 0
#endif
#define CK_SUFFIX baseline
#include "scan_impl.h"
