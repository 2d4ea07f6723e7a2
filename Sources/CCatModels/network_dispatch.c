// The networks' convolutions' public functions: each runs the build in use (ck_isa_active),
// the one the filter kernels and the cascade scan run.
#include "cat_models.h"

#include "ck_kernel_list.h"
#include "cat_models.def"
#undef CK_KERNEL
