// The SSE4.1 build (x86-64 only).
#if defined(__x86_64__)
#pragma clang attribute push(__attribute__((target("sse4.1"))), apply_to = function)
#define CK_LEVEL 1
#define CK_SUFFIX sse41
#include "network_impl.h"
#pragma clang attribute pop
#endif
