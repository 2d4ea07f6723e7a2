#include <libheif/heif.h>
#include <avif/avif.h>
