// The cascade scan's public function: the build in use (ck_isa_active), the one the filter
// kernels run, so `bench --isa` and the tests' per-build runs choose this scan's build too.
#include "cat_detectors.h"

#include "ck_kernel_list.h"
#include "cat_kernels.def"
#undef CK_KERNEL
