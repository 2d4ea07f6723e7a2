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
    const char *method;          // NULL or "GET"; "HEAD", "PUT", "POST", "DELETE"
    const char *url;
    const char *const *headers;  // "Name: value" lines, never logged
    size_t header_count;
    const char *user_agent;
    long connect_timeout_ms;
    long timeout_ms;             // the whole transfer
    long max_redirects;          // 0: redirects are not followed (a 3xx is the reply)
    int64_t max_bytes;           // refuse a larger body (announced or received); 0: no limit
    long stall_seconds;          // abort when under 1 KiB/s for this long; 0: only timeout_ms
    int accept_encoding;         // ask for gzip/deflate/... (decoded before on_data sees it)
    const uint8_t *body;         // what PUT and POST send (body_length bytes; may be NULL when 0)
    size_t body_length;
    // AWS Signature Version 4 by libcurl (CURLOPT_AWS_SIGV4), e.g. "aws:amz:us-east-1:s3",
    // with `credentials` "KEY:SECRET"; NULL: unsigned. libcurl signs the headers given, the
    // path and the query as they are written: the caller encodes and sorts them.
    const char *aws_sigv4;
    const char *credentials;
    cc_data_fn on_data;          // a reply that is not 2xx gives at most 64 KiB of its body
    cc_progress_fn on_progress;
    void *context;
} cc_request;

typedef struct cc_result {
    int curl_code;               // CURLE_*: 0 when the transfer itself worked
    long http_status;
    int64_t retry_after_seconds; // from Retry-After, or -1
    int64_t content_length;      // announced by the reply, or -1
    int64_t announced_length;    // the Content-Length a reply was refused on (over max_bytes), or -1
    char content_type[128];
    char etag[256];              // the ETag header, as sent
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
// Performs the request; fills `result` and returns one of CC_*.
int cc_perform(const cc_request *request, cc_result *result);
// SHA-256 of `length` bytes into out[32] (OpenSSL's libcrypto, loaded when first needed;
// CommonCrypto on Apple's systems). 0 when libcrypto cannot be loaded.
int cc_sha256(const uint8_t *data, size_t length, uint8_t out[32]);

#endif
