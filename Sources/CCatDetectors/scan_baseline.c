// The baseline build: SSE2 on x86-64, NEON on arm64, whatever the compiler targets elsewhere.
#define CK_SUFFIX baseline
#include "scan_impl.h"
