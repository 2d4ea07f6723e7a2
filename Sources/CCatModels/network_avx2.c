// The AVX2 build (x86-64 only).
#if defined(__x86_64__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#define CK_LEVEL 2
#define CK_SUFFIX avx2
#include "network_impl.h"
#pragma clang attribute pop
#endif
