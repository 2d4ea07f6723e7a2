#include "cat_detectors.h"

/* #embed (C23) keeps the files as they are, licence headers included, with no generated
 * source to keep in step. */
static const char lbp[] = {
#embed "lbpcascade_frontalcatface.xml"
    , 0};

static const char haar[] = {
#embed "haarcascade_frontalcatface.xml"
    , 0};

const char *cc_lbp_frontalcatface(size_t *length) {
    *length = sizeof lbp - 1;
    return lbp;
}

const char *cc_haar_frontalcatface(size_t *length) {
    *length = sizeof haar - 1;
    return haar;
}
