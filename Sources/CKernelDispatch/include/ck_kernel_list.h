// The dispatch of a kernel list (a .def of CK_KERNEL lines), shared by every kernel
// target's dispatch file (CFilterKernels' dispatch.c, CCatDetectors' scan_dispatch.c,
// CCatModels' network_dispatch.c): include this, then the list.
#ifndef CK_KERNEL_LIST_H
#define CK_KERNEL_LIST_H
#include "ck_dispatch.h"

// Each kernel of the list: a declaration per build, and the public function, which runs
// the build in use (ck_isa_active).
#if defined(__x86_64__)
#define CK_KERNEL(ret, name, params, args)                  \
    ret name##_baseline params;                             \
    ret name##_sse41 params;                                \
    ret name##_avx2 params;                                 \
    ret name##_avx512 params;                               \
    ret name params {                                       \
        switch (ck_isa_active()) {                          \
        case CK_ISA_AVX512: return name##_avx512 args;      \
        case CK_ISA_AVX2: return name##_avx2 args;          \
        case CK_ISA_SSE41: return name##_sse41 args;        \
        default: return name##_baseline args;               \
        }                                                   \
    }
#else
#define CK_KERNEL(ret, name, params, args)                  \
    ret name##_baseline params;                             \
    ret name params { return name##_baseline args; }
#endif
#endif
