#ifndef CAT_CASCADES_H
#define CAT_CASCADES_H
#include <stddef.h>

/* OpenCV's cat-face cascades (Joseph Howse, BSD-style licence in each file's header), as
 * Debian's opencv-data 4.6 ships them, built into the binary so that nothing is read or
 * downloaded at run time. Each is the XML text, NUL-terminated; `length` excludes the NUL. */
const char *cc_lbp_frontalcatface(size_t *length);
const char *cc_haar_frontalcatface(size_t *length);

#endif
