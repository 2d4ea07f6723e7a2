// The filter kernels' public functions: each runs the build in use (ck_isa_active).
#include "cfilter_kernels.h"

#include "ck_kernel_list.h"
#include "cfilter_kernels.def"
#undef CK_KERNEL
