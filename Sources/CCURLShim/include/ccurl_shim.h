// A small C layer over libcurl's easy interface: the variadic curl_easy_setopt is only
// called here, through typed helpers, and one request is one call.
#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

#include <stddef.h>
#include <stdint.h>

// Called with each piece of the body; return 0 to stop the transfer (too large).
typedef int (*cc_data_fn)(void *context, const uint8_t *data, size_t length);
// Called often (at least about once a second, stalled or not); return non-zero to
// abort the transfer at once (cancelled).
typedef int (*cc_progress_fn)(void *context, int64_t received, int64_t expected);

typedef struct cc_request {
    const char *url;
    const char *const *headers;  // "Name: value" lines, never logged
    size_t header_count;
    const char *user_agent;
    long connect_timeout_ms;
    long timeout_ms;             // the whole transfer
    long max_redirects;          // 0: redirects are not followed (a 3xx is the reply)
    int64_t max_bytes;           // refuse a larger body (announced or received); 0: no limit
    cc_data_fn on_data;
    cc_progress_fn on_progress;
    void *context;
} cc_request;

typedef struct cc_result {
    int curl_code;               // CURLE_*: 0 when the transfer itself worked
    long http_status;
    int64_t retry_after_seconds; // from Retry-After, or -1
    char content_type[128];
    char effective_url[2048];    // after redirects
    char error[256];
} cc_result;

enum {
    CC_OK = 0,
    CC_ERR_TIMEOUT = 1,          // connect or total timeout
    CC_ERR_CONNECT = 2,          // could not resolve or connect, or the connection broke
    CC_ERR_ABORTED = 3,          // the progress callback asked to stop (cancelled)
    CC_ERR_TOO_LARGE = 4,        // the body is larger than max_bytes
    CC_ERR_PROTOCOL = 5,         // a scheme other than http/https (also on redirects)
    CC_ERR_REDIRECTS = 6,        // too many redirects
    CC_ERR_TLS = 7,              // certificate or TLS failure
    CC_ERR_OTHER = 8,
};

// Once per process, before any other call.
int cc_global_init(void);
// Performs a GET; fills `result` and returns one of CC_*.
int cc_perform(const cc_request *request, cc_result *result);

#endif
