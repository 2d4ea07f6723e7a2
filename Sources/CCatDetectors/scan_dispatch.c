// The cascade scan's public function: the build CFilterKernels has chosen (ck_isa_active),
// so `bench --isa` and the tests' per-build runs choose this scan's build too.
#include "cat_detectors.h"

#include "dispatch.h"
#include "cat_kernels.def"
#undef CK_KERNEL
