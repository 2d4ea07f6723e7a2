#include <raqm.h>
#include <fontconfig/fontconfig.h>
