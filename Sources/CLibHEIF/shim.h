#include <libheif/heif.h>
#include <avif/avif.h>
#include <libde265/de265.h>
#include <dav1d/dav1d.h>
#include <libheif/heif_plugin.h>
