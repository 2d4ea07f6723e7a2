#include <libheif/heif.h>
#include <avif/avif.h>
#include <libde265/de265.h>
#include <libheif/heif_plugin.h>
