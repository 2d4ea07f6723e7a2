// The AVX-512 build (x86-64 only): 16 pixels per vector.
#if defined(__x86_64__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl"))), apply_to = function)
#define CK_LEVEL 3
#define CK_SUFFIX avx512
#include "network_impl.h"
#pragma clang attribute pop
#endif
